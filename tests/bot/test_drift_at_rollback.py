"""A device changed since its preview, in a push whose post-checks then fail.

Through the decision service with the real graph, saver and simulated lab (netmiko over telnet):
three IOS-like routers get a static route whose post-check read (`show ip route`) they refuse,
so the post-checks of the routers pushed fail; R3 is changed at its console between the preview
and Execute, so the push leaves it alone. The rollback gate names R3 with why and what changed;
Keep (said as kept, not cancelled) ends the change as pushed and names R3 as not pushed; Roll back
leaves R3 as it is and says so; neither offers R3 again, and the audit row of R3 promises nothing
the change does not do.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from bot.cli.demo import DEMO_CREDENTIALS
from bot.runtime.wiring import Runtime
from labsim import Lab, demo_topology
from tests.bot.chat import THREAD, RecordingAdapter, ask, click
from tests.bot.test_drift import configure
from tests.bot.test_push_records import STATIC, checked_bot

ROUTE = "ip route 10.99.0.0 255.255.0.0 10.0.12.2"
BY_HAND = "ntp server 10.7.7.7"


@pytest.fixture
async def lab() -> AsyncIterator[Lab]:
    refused = {name: ["^show ip route"] for name in ("R1", "R2", "R3")}
    async with Lab.start(demo_topology(3), reject=refused, **DEMO_CREDENTIALS) as lab:
        yield lab


@asynccontextmanager
async def at_rollback_gate(
    tmp_path: Path, lab: Lab
) -> AsyncIterator[tuple[RecordingAdapter, Runtime]]:
    """The bot once the route was previewed on R1-R3, R3 changed by hand, and Execute clicked:
    R1 and R2 pushed, their post-checks failed, the rollback gate last in the thread."""
    chat = RecordingAdapter()
    async with checked_bot(tmp_path, lab, chat) as bot:
        await bot.service.handle(ask(STATIC, "alice"))
        await bot.service.handle(click(chat, "bob"))  # the template
        await asyncio.to_thread(configure, lab, "R3", [BY_HAND])
        await bot.service.handle(click(chat, "bob"))  # execute
        yield chat, bot


async def test_the_rollback_gate_names_the_device_left_alone_and_keep_ends_the_change(
    tmp_path: Path, lab: Lab
) -> None:
    async with at_rollback_gate(tmp_path, lab) as (chat, bot):
        _, gate = chat.last_gate()
        await bot.service.handle(click(chat, "bob", "cancel"))  # keep
        await bot.service.handle(click(chat, "carol"))  # Roll back, too late
        pending = await bot.workflow.pending_gate(THREAD.key)
        change = await bot.audit.latest_change_for_thread(THREAD.key)
        assert change is not None
        summary = await bot.audit.change_summary(change.change_id)
    ended = [m.text for m in chat.messages() if not m.ephemeral_to][-1]
    assert "*Post-checks failed*" in gate.text and "on R1, R2 (of 2 checked)" in gate.text
    assert "Not pushed as approved: R3: R3 changed since the preview" in gate.text, gate.text
    assert "Neither Roll back nor Keep changes R3; ask again" in gate.text, gate.text
    assert "fresh preview" not in gate.text, gate.text
    shown = {block.title: block.text for block in gate.blocks}
    assert f"+{BY_HAND}" in shown["R3 changed since the preview"]
    assert "R3 rollback lines" not in shown  # nothing of the change on R3 to undo
    decided = [message.footer for _, message in chat.updates if message.text == gate.text]
    assert decided and decided[-1].startswith("✋ Kept as pushed by bob"), decided
    assert pending is None  # the change ended as kept: nothing more is offered
    late = chat.said_to("console:carol")
    assert any(t.startswith("This step was already kept as pushed by bob") for t in late), late
    assert "bob kept the change as pushed" in ended and "Not pushed as approved: R3: " in ended, (
        ended
    )
    for name in ("R1", "R2"):
        assert ROUTE in lab.device(name).running_config(), name
    assert ROUTE not in lab.device("R3").running_config()
    assert BY_HAND in lab.device("R3").running_config()
    assert summary is not None
    r3 = [push.detail for push in summary.pushes if push.device == "R3"]
    assert r3[0] is not None and r3[0].endswith("changed since the preview; not pushed"), r3


async def test_roll_back_leaves_the_device_alone_and_says_so(tmp_path: Path, lab: Lab) -> None:
    async with at_rollback_gate(tmp_path, lab) as (chat, bot):
        await bot.service.handle(click(chat, "bob"))  # roll back
        pending = await bot.workflow.pending_gate(THREAD.key)
    ended = chat.texts()[-1]
    assert pending is None  # no fresh preview after a roll back
    footers = [message.footer for _, message in chat.updates]
    assert any(f.startswith("↩️ Roll back approved by bob") for f in footers), footers
    assert "rolled back as approved by bob" in ended, ended
    assert "Not pushed as approved: R3: " in ended, ended
    for name in ("R1", "R2", "R3"):
        assert ROUTE not in lab.device(name).running_config(), name
    assert BY_HAND in lab.device("R3").running_config()
