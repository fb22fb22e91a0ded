"""Reads in chat on real FRR routers: `show ip ospf neighbor on r1 r2` answers with FRR's JSON as
a table and no gate; injection attempts, device commands typed as messages (`do reload`) and
ping/traceroute (vtysh cannot bound them) are refused and no line reaches any router (each
console's vtysh history is the device-side record); the audit lists the reads; `lab` lists the
routers and says which one no longer answers."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.audit.table import entry_summary
from frrlab import FrrLab
from frrlab.console import close_console
from tests.bot.chat import RecordingAdapter, ask
from tests.bot.test_reads import INJECTIONS
from tests.bot.test_reads_refusals import DEVICE_COMMANDS
from tests.frrlab.test_chat_changes import bot_on, change, eventually, full_neighbours
from tests.support.masks import MASK

pytestmark = [
    pytest.mark.frr,
    pytest.mark.usefixtures("frr_host"),
    pytest.mark.xdist_group("frr-lab"),
]

# vtysh 8.4 has `ping WORD` and `traceroute WORD` only: the host's tool, with no count or timeout
UNBOUNDED_PROBES = [
    "ping 10.0.12.2 on R1",
    "ping 10.0.12.2 repeat 2 on R1",
    "traceroute 10.0.23.2 on R1 R2",
]


async def test_show_ospf_neighbours_on_two_routers_is_a_table_from_frr_json(
    tmp_path: Path,
) -> None:
    chat = RecordingAdapter()
    async with FrrLab.start(prefix="asklab") as lab, bot_on(lab, tmp_path, chat) as bot:
        await change(bot, chat, "configure ospf on all routers fast=true")
        assert await eventually(lambda: full_neighbours(lab, "R1") and full_neighbours(lab, "R2"))
        gates = len([m for m in chat.messages() if m.buttons])
        before = {router: len(lab.console_history(router)) for router in ("R1", "R2")}
        await bot.service.handle(ask("show ip ospf neighbor on r1 r2", "carol"))
        said = chat.messages()[-1]
        await bot.service.handle(ask("show ip ospf neighbor on r2 raw", "carol"))
        raw = chat.messages()[-1]
        await bot.service.handle(ask("neighbours on R3", "carol"))  # a question, same read
        question = chat.messages()[-1]
        history = {r: lab.console_history(r)[n:] for r, n in before.items()}  # since the reads
        reads = await bot.audit.entries(user="carol")
    assert len([m for m in chat.messages() if m.buttons]) == gates  # the reads asked no gate
    assert said.text == "`show ip ospf neighbor` on R1, R2: ✓ 2 ✗ 0", said.text
    tables = {block.title: block.text for block in said.blocks}
    r1 = tables["✓ R1 · show ip ospf neighbor json"]
    r2 = tables["✓ R2 · show ip ospf neighbor json"]
    assert r1.splitlines()[0].split() == ["neighbour", "state"]
    assert "10.0.12.2  Full" in r1, r1
    assert "10.0.12.1  Full" in r2 and "10.0.23.2  Full" in r2, r2
    text = raw.blocks[0].text
    assert raw.blocks[0].title == "✓ R2 · show ip ospf neighbor" and "Full/" in text, text
    assert "show ip ospf neighbor json" in history["R1"], history
    assert "show ip ospf neighbor json" in history["R2"], history
    assert "show ip ospf neighbor" in history["R2"]  # raw: the text form
    assert all(
        line.startswith(("show ", "terminal ", "exit")) for h in history.values() for line in h
    )
    assert question.blocks[0].title == "✓ R3 · show ip ospf neighbor json", question.blocks
    assert "10.0.23.1  Full" in question.blocks[0].text, question.blocks[0].text
    assert [(e.kind, e.device) for e in reads] == [
        ("read", "R1"),
        ("read", "R2"),
        ("read", "R2"),
        ("read", "R3"),
    ]
    assert entry_summary(reads[0], MASK) == "read on R1: show ip ospf neighbor json"


async def test_injections_and_device_commands_reach_no_router(tmp_path: Path) -> None:
    chat = RecordingAdapter()
    async with FrrLab.start(prefix="asklab") as lab, bot_on(lab, tmp_path, chat) as bot:
        for text in [*INJECTIONS, *DEVICE_COMMANDS, *UNBOUNDED_PROBES]:
            await bot.service.handle(ask(text, "mallory"))
        untouched = {router: lab.console_history(router) for router in lab.routers}
        await bot.service.handle(ask("show run | include hostname on R1", "alice"))
        said = chat.messages()[-1]
        touched = lab.console_history("R1")
    assert untouched == {router: [] for router in lab.routers}  # not one line on any console
    refusals = chat.said_to("console:mallory")
    assert len(refusals) == len(INJECTIONS) + len(DEVICE_COMMANDS) + len(UNBOUNDED_PROBES)
    assert all(t.startswith("Refused: ") for t in refusals)
    commands = refusals[len(INJECTIONS) : -len(UNBOUNDED_PROBES)]
    assert all("is a device command" in t for t in commands), commands
    probes = refusals[-len(UNBOUNDED_PROBES) :]
    assert all(t.startswith("Refused: R1: `") for t in probes), probes
    assert all("` in FRR's vtysh takes only an address" in t for t in probes), probes
    # the control: an allowed read does reach the router, and only what was asked
    assert "show run | include hostname" in touched, touched
    assert said.blocks[0].text.strip() == "hostname R1", said.blocks[0].text


async def test_lab_shows_each_router_and_a_stopped_one_as_unreachable(tmp_path: Path) -> None:
    chat = RecordingAdapter()
    async with FrrLab.start(prefix="asklab") as lab, bot_on(lab, tmp_path, chat) as bot:
        close_console(lab.consoles["R3"].process)  # R3 stopped: its console no longer answers
        await bot.service.handle(ask("lab", "carol"))
        ports = {router: lab.port(router) for router in ("R1", "R2")}
        history = {router: lab.console_history(router) for router in ("R1", "R2")}
    said = chat.messages()[-1]
    assert said.text.startswith("The lab: 3 device(s), 2 answering now. Unreachable: R3"), said
    cells = [re.split(r"\s{2,}", row) for row in said.blocks[0].text.splitlines()[1:]]
    table = {name: rest for name, *rest in cells}
    for router, port in ports.items():
        assert table[router] == ["frr_telnet", "router", f"telnet 127.0.0.1:{port}", "yes"]
    assert table["R3"][3] == "NO: connection refused", table["R3"]
    assert history == {"R1": [], "R2": []}  # the probe typed nothing on any console
