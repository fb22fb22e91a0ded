"""A change whose post-checks fail on real FRR: the thread says which route is missing on which
router, offers Rollback, and an approved rollback returns the router's running configuration to
what it was before the change; the decision is in the audit, attributed."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.audit.table import render_entries
from frrlab import FrrLab
from tests.bot.chat import RecordingAdapter, click
from tests.frrlab.test_chat_changes import bot_on, change, post_checks_within
from tests.support.masks import MASK

pytestmark = [
    pytest.mark.frr,
    pytest.mark.usefixtures("frr_host"),
    pytest.mark.xdist_group("frr-lab"),
]

# FRR takes the route, but its next hop is on no connected network: it is never installed
UNREACHABLE = "apply static_route to R1 prefix=10.99.0.0/16 next_hop=10.77.0.1"


async def test_failed_post_checks_lead_to_an_approved_rollback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    post_checks_within(monkeypatch, "static_route", 3)
    chat = RecordingAdapter()
    async with FrrLab.start() as lab, bot_on(lab, tmp_path, chat) as bot:
        before = lab.vtysh("R1", "show running-config")
        change_id = await change(bot, chat, UNREACHABLE)
        assert "ip route 10.99.0.0/16 10.77.0.1" in lab.vtysh("R1", "show running-config")
        _, gate = chat.last_gate()
        shown = gate.text + "\n".join(block.text for block in gate.blocks)
        assert f"*Post-checks failed* for change {change_id} on R1" in gate.text
        assert "route 10.99.0.0/16: not in the routing table" in shown  # FRR lists it nowhere
        assert "no ip route 10.99.0.0/16 10.77.0.1" in shown
        assert [b.label for b in gate.buttons] == ["Roll back", "Keep the change"]
        await bot.service.handle(click(chat, "carol"))
        after = lab.vtysh("R1", "show running-config")
        entries = await bot.audit.entries(change_id=change_id)
    assert after == before
    said = "\n".join(chat.texts())
    assert "rolled back as approved by carol" in said, said
    trail = render_entries(entries, "csv", MASK)
    assert "rollback" in trail and "carol" in trail
