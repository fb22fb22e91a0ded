"""Drift on real FRR routers: a router changed at its console between the preview and Execute is
not pushed (the thread shows what changed and offers a fresh preview), the other router is; when
the other router's post-checks then fail, the rollback gate names the one left alone and Keep
ends the change saying so; FRR's own banner lines (`frr version`, `frr defaults`) are not drift."""

from __future__ import annotations

from pathlib import Path

import pytest

from frrlab import FrrLab, generated_topology
from tests.bot.chat import THREAD, RecordingAdapter, ask, click
from tests.frrlab.test_chat_changes import bot_on, post_checks_within
from workflow.devices.volatile import drift_diff

pytestmark = [
    pytest.mark.frr,
    pytest.mark.usefixtures("frr_host"),
    pytest.mark.xdist_group("frr-lab"),
]

BY_HAND = "ip prefix-list by-hand seq 5 permit 10.99.0.0/16"
# FRR takes the route, but its next hop is on no connected network: its post-check fails
UNREACHABLE = "apply static_route to R1,R2 prefix=10.99.0.0/16 next_hop=10.77.0.1"


async def test_a_router_changed_at_its_console_after_the_preview_is_left_alone(
    tmp_path: Path,
) -> None:
    chat = RecordingAdapter()
    async with FrrLab.start(generated_topology(2)) as lab, bot_on(lab, tmp_path, chat) as bot:
        await bot.service.handle(ask("describe the interfaces on all routers", "alice"))
        await bot.service.handle(click(chat, "bob"))
        assert "Step 2 of 2" in chat.last_gate()[1].text, chat.texts()
        execute = click(chat, "bob")
        lab.vtysh("R1", "configure terminal", BY_HAND)
        await bot.service.handle(execute)
        fresh = chat.last_gate()[1]
        r1 = lab.vtysh("R1", "show running-config")
        r2 = lab.vtysh("R2", "show running-config")
    assert "left R1 alone" in fresh.text, fresh.text
    shown = {block.title: block.text for block in fresh.blocks}
    assert f"+{BY_HAND}" in shown["R1 changed since the preview"]
    assert "description to R2 eth0" in shown["R1 configuration"]  # offered again, not pushed
    assert "description to R1 eth0" in r2 and "description to R2 eth0" not in r1


async def test_when_post_checks_fail_the_rollback_gate_names_the_router_left_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    post_checks_within(monkeypatch, "static_route", 3)
    chat = RecordingAdapter()
    async with FrrLab.start(generated_topology(2)) as lab, bot_on(lab, tmp_path, chat) as bot:
        await bot.service.handle(ask(UNREACHABLE, "alice"))
        await bot.service.handle(click(chat, "bob"))
        execute = click(chat, "bob")
        lab.vtysh("R2", "configure terminal", BY_HAND)
        await bot.service.handle(execute)
        _, gate = chat.last_gate()
        await bot.service.handle(click(chat, "bob", "cancel"))  # keep
        pending = await bot.workflow.pending_gate(THREAD.key)
        r1 = lab.vtysh("R1", "show running-config")
        r2 = lab.vtysh("R2", "show running-config")
    assert "*Post-checks failed*" in gate.text and "on R1 (of 1 checked)" in gate.text, gate.text
    assert "Not pushed as approved: R2: " in gate.text, gate.text
    assert "Neither Roll back nor Keep changes R2; ask again" in gate.text, gate.text
    shown = {block.title: block.text for block in gate.blocks}
    assert f"+{BY_HAND}" in shown["R2 changed since the preview"]
    assert pending is None and "Not pushed as approved: R2: " in chat.texts()[-1], chat.texts()
    assert "ip route 10.99.0.0/16 10.77.0.1" in r1 and "ip route 10.99.0.0/16" not in r2


def test_frr_version_and_defaults_lines_are_not_drift(frr_host: None) -> None:
    with FrrLab.run(generated_topology(1)) as lab:
        running = lab.vtysh("R1", "show running-config")
    assert "frr version" in running and "frr defaults" in running
    upgraded = "\n".join(
        "frr version 99.0" if line.startswith("frr version") else line
        for line in running.splitlines()
    ).replace("frr defaults traditional", "frr defaults datacenter")
    assert upgraded != running
    assert drift_diff("frr", running, upgraded) == ""
    assert drift_diff("frr", running, running + f"\n{BY_HAND}\n") != ""
