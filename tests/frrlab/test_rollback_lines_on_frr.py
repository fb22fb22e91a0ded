"""What a rollback writes on real FRR: the lines offered at a rollback gate (a change whose
post-checks fail) come from the router's own backups, but a line the router printed with
control characters in it (a description set outside labbot: Ctrl-U erases what vtysh was typed,
Ctrl-Z ends configuration mode) is refused, never pushed, even though a rollback may break the
deny-list rules its own lines break: approvers would read one line and the router run another."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from frrlab import FrrLab
from tests.bot.chat import RecordingAdapter, click
from tests.frrlab.test_chat_changes import bot_on, change
from tests.security.tally import attempt
from workflow.library.catalog import load_catalog

pytestmark = [
    pytest.mark.frr,
    pytest.mark.usefixtures("frr_host"),
    pytest.mark.xdist_group("frr-lab"),
]

HOSTILE = " description a\x15ip forwarding\x1a"  # as the router shows it under `interface lo`
# FRR takes the route, but its next hop is on no connected network: the post-check fails
UNREACHABLE = "apply static_route to R1 prefix=10.99.0.0/16 next_hop=10.77.0.1"


def describing_static_route(monkeypatch: pytest.MonkeyPatch) -> None:
    """The built-in static route, as a lab might extend it: it also describes the loopback
    (so its rollback restores the loopback's description); its post-checks wait 3 s."""
    template = load_catalog().get("static_route")
    assert template.post_checks is not None
    frr = "interface lo\n description static via {{ next_hop }}\n" + template.templates["frr"]
    extended = dataclasses.replace(
        template,
        templates={**template.templates, "frr": frr},
        sections=(*template.sections, "interface * / description *"),
        post_checks={**template.post_checks, "timeout": 3},
    )
    monkeypatch.setitem(load_catalog()._templates, "static_route", extended)


async def test_a_rollback_gate_never_pushes_a_line_with_control_characters(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    describing_static_route(monkeypatch)
    chat = RecordingAdapter()
    async with FrrLab.start(prefix="undo") as lab, bot_on(lab, tmp_path, chat) as bot:
        lab.vtysh("R1", "configure terminal", "interface lo", HOSTILE)
        await change(bot, chat, UNREACHABLE)
        _, gate = chat.last_gate()
        assert [b.label for b in gate.buttons] == ["Roll back", "Keep the change"], gate.text
        await bot.service.handle(click(chat, "carol"))
        after = lab.vtysh("R1", "show running-config")
    said = "\n".join(chat.texts())
    restored = HOSTILE in after.splitlines()
    attempt("rollback: a line with control characters restored", not restored)
    assert not restored and " description static via 10.77.0.1" in after, after
    assert "control-character" in said and "rolled back" not in said, said
