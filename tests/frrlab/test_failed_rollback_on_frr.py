"""A rollback whose push fails on one real FRR router (its console stopped after the rollback
was offered): the thread and the audit say the change was rolled back where the push took,
and NOT rolled back on that router, why, and what to do; never "rolled back" for the change."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.runtime.wiring import Runtime
from frrlab import FrrLab
from frrlab.console import close_console
from tests.bot.chat import THREAD, RecordingAdapter, ask, click
from tests.frrlab.test_chat_changes import bot_on, change, post_checks_within

pytestmark = [
    pytest.mark.frr,
    pytest.mark.usefixtures("frr_host"),
    pytest.mark.xdist_group("frr-lab"),
]

# FRR takes the route, but its next hop is on no connected network: the post-checks fail
UNREACHABLE = "apply static_route to R1,R2 prefix=10.99.0.0/16 next_hop=10.77.0.1"
ROUTE = "ip route 10.99.0.0/16 10.77.0.1"


async def test_an_approved_rollback_that_fails_on_one_router_says_where_it_did_not_roll_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    post_checks_within(monkeypatch, "static_route", 3)
    chat = RecordingAdapter()
    async with FrrLab.start(prefix="undone") as lab, bot_on(lab, tmp_path, chat) as bot:
        before = lab.vtysh("R1", "show running-config")
        change_id = await change(bot, chat, UNREACHABLE)
        _, gate = chat.last_gate()
        assert [b.label for b in gate.buttons] == ["Roll back", "Keep the change"], gate.text
        close_console(lab.consoles["R2"].process)  # R2 stopped answering after the offer
        await bot.service.handle(click(chat, "carol"))
        r1, r2 = (lab.vtysh(r, "show running-config") for r in ("R1", "R2"))
        ended = said(chat, -1)
        audit = await audit_of(bot, chat, change_id)
    assert r1 == before and ROUTE in r2.splitlines()
    assert "✓ 1 ✗ 1 of 2" in ended and "rolled back as approved" not in ended, ended
    assert "rolled back on R1 as approved by carol" in ended, ended
    assert "NOT rolled back on R2: connection refused" in ended, ended
    assert "The change stays on R2: read it there (`show running-config on R2`)" in ended, ended
    assert "rolled back on R2" not in audit and "failed: R2:" in audit, audit


async def test_a_rollback_asked_in_chat_that_fails_is_not_told_as_rolled_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    post_checks_within(monkeypatch, "static_route", 3)
    chat = RecordingAdapter()
    async with FrrLab.start(prefix="unasked") as lab, bot_on(lab, tmp_path, chat) as bot:
        change_id = await change(bot, chat, UNREACHABLE)
        await bot.service.handle(click(chat, "carol", "cancel"))  # keep the change
        undo = THREAD.__class__(THREAD.platform, THREAD.channel, "t2")
        await bot.service.handle(ask(f"rollback {change_id}", "alice", undo))
        await bot.service.handle(click(chat, "bob", thread=undo))
        close_console(lab.consoles["R2"].process)  # R2 stopped answering before the push
        await bot.service.handle(click(chat, "bob", thread=undo))
        ended = said(chat, -1)
        found = await bot.audit.latest_change_for_thread(undo.key)
        assert found is not None
        undo_id = found.change_id
        audit = await audit_of(bot, chat, change_id)
        r2 = lab.vtysh("R2", "show running-config")
    assert ROUTE in r2.splitlines() and "✓ 1 ✗ 1 of 2" in ended, ended
    assert "✗ R2" in ended and "rolled back" not in ended, ended
    assert f"rolled back by {undo_id}" not in audit, audit
    assert f"rollback {undo_id} (requested by alice at " in audit, audit
    assert "did not roll it back: failed — " in audit and "failed: R2:" in audit, audit


def said(chat: RecordingAdapter, index: int) -> str:
    """A message the bot posted, with its blocks."""
    message = chat.messages()[index]
    blocks = [f"{block.title}\n{block.text}" for block in message.blocks]
    return "\n".join([message.text, *blocks])


async def audit_of(bot: Runtime, chat: RecordingAdapter, change_id: str) -> str:
    """What `audit change=…` answers in chat."""
    posted = len(chat.messages())
    await bot.service.handle(ask(f"audit change={change_id}", "carol"))
    return "\n".join(said(chat, index) for index in range(posted, len(chat.messages())))
