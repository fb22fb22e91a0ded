"""A push that breaks off is told and booked as the devices' read back says, with a rollback.

Through the decision service with the real graph, saver and simulated lab (netmiko over telnet):
five NTP servers pushed to three routers, each failing its own way after the session entered
configuration mode: R1 drops the session at `end` (every line took), R2 at the third line (two
took), R3 at every read of its configuration once configured (what took is unknown). The
thread, the rollback gate and the audit say what landed on each, never "pushed to 0"; the
rollback gate is offered and undoes what landed.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.cli.demo import DEMO_CREDENTIALS
from labsim import Lab, demo_topology
from tests.bot.chat import THREAD, RecordingAdapter, ask, click
from tests.bot.test_e2e_console import running_bot

SERVERS = [f"192.0.2.{n}" for n in range(1, 6)]
NTP = f"apply ntp to R1,R2,R3 servers={','.join(SERVERS)}"
FAULTS = {"R1": "drop_at_exit", "R2": {"drop_after": 2}, "R3": "drop_read_back"}
ALL = "; ".join(f"ntp server {server}" for server in SERVERS)


@pytest.fixture
async def lab() -> AsyncIterator[Lab]:
    async with Lab.start(demo_topology(3), faults=FAULTS, **DEMO_CREDENTIALS) as lab:
        yield lab


async def test_a_broken_push_says_what_landed_and_offers_the_rollback(
    tmp_path: Path, lab: Lab
) -> None:
    chat = RecordingAdapter()
    async with running_bot(tmp_path, lab, chat) as bot:
        await bot.service.handle(ask(NTP, "alice"))
        await bot.service.handle(click(chat, "bob"))  # the template
        await bot.service.handle(click(chat, "bob"))  # execute
        _, gate = chat.last_gate()
        change = await bot.audit.latest_change_for_thread(THREAD.key)
        assert change is not None
        await bot.service.handle(click(chat, "bob", "cancel"))  # keep what landed
        summary = await bot.audit.change_summary(change.change_id)
        await bot.service.handle(ask(f"audit change={change.change_id}", "carol"))
    told = next(text for text in chat.texts() if text.startswith("Change "))
    audit = "\n".join(block.text for block in chat.messages()[-1].blocks)  # `audit change=`

    assert "*The push broke off*" in gate.text and "R1, R2, R3" in gate.text
    r1 = f"landed 5 of 5 lines on R1: {ALL}; "
    r2 = "landed 2 of 5 lines on R2: ntp server 192.0.2.1; ntp server 192.0.2.2; session to "
    r3 = "what landed on R3 is unknown: the read back failed (session to "
    for said in (gate.text, told):
        assert r1 in said and r2 in said and r3 in said, said
    assert {button.choice for button in gate.buttons} == {"approve", "cancel"}
    assert "the push broke off; bob kept what landed (no rollback)" in told

    assert summary is not None
    ended = summary.events[-1]
    assert ended.status == "failed" and ended.detail.startswith("pushed to 2 of 3 devices; ")
    assert "pushed to 0" not in ended.detail  # R3's read back failed: unknown, not counted
    rows = {push.device: push for push in summary.pushes}
    assert {name: row.status for name, row in rows.items()} == dict.fromkeys(FAULTS, "failed")
    assert rows["R1"].detail.startswith(r1) and rows["R2"].detail.startswith(r2)
    assert rows["R3"].detail.startswith(r3)
    assert r1 in audit and r2 in audit and r3 in audit
    for name in ("R1", "R3"):  # what the devices hold, whatever the sessions said
        assert all(f"ntp server {s}" in lab.device(name).running_config() for s in SERVERS)
