"""IOS and EOS devices whose address came by DHCP: the running config says `ip address dhcp`,
only the state (IOS `show ip interface brief`, `show interfaces`; EOS `show ip interface |
json`) shows the address. labbot plans with that address as if it were configured."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.cli.demo import DEMO_CREDENTIALS
from labsim import Lab, demo_topology
from labsim.ios import show_ip_interface_brief
from labsim.topology import Topology, topology_from_dict
from tests.bot.chat import RecordingAdapter, ask, click
from tests.bot.test_e2e_console import running_bot
from workflow.devices.interface_state import STATE_COMMANDS


def leased_lab(device: str = "R1", interface: str = "GigabitEthernet0/0") -> Topology:
    """The demo's R1, R2 and SW1, `device`'s `interface` addressed by DHCP (by default R1's
    link to R2)."""
    demo = demo_topology(2)
    interfaces = tuple(
        dataclasses.replace(i, dhcp=True) if i.name == interface else i
        for i in demo.device(device).interfaces
    )
    devices = tuple(
        dataclasses.replace(d, interfaces=interfaces) if d.name == device else d
        for d in demo.devices
    )
    return dataclasses.replace(demo, devices=devices)


@pytest.fixture
async def lab() -> AsyncIterator[Lab]:
    async with Lab.start(leased_lab(), **DEMO_CREDENTIALS) as lab:
        yield lab


async def test_an_eos_leased_address_is_read_from_show_ip_interface_json(tmp_path: Path) -> None:
    """EOS: the config says `ip address dhcp`; `show ip interface | json` (read over the
    device's own session, eAPI's shape) has the address, and OSPF is planned on it."""
    chat = RecordingAdapter()
    async with Lab.start(leased_lab("SW1", "Ethernet1"), **DEMO_CREDENTIALS) as lab:
        config = lab.device("SW1").running_config()
        async with running_bot(tmp_path, lab, chat) as bot:
            await bot.service.handle(ask("configure ospf on SW1", "alice"))
            await bot.service.handle(click(chat, "bob"))
            _, gate = chat.last_gate()
        seen = list(lab.device("SW1").commands_seen)
    assert "interface Ethernet1\n   description to R1\n   no switchport\n   ip address dhcp\n" in (
        config
    )
    assert "10.0.100.2" not in config
    assert STATE_COMMANDS["arista_eos"] in seen, seen
    preview = gate.text + "\n".join(block.text for block in gate.blocks)
    assert "could not be read" not in gate.text, gate.text
    assert "network 10.0.100.0/24 area 0" in preview, preview


async def test_the_leased_address_is_in_the_state_not_the_config(lab: Lab) -> None:
    config = lab.device("R1").running_config()
    brief = show_ip_interface_brief(lab.device("R1"), [])
    assert "interface GigabitEthernet0/0\n description to R2\n ip address dhcp\n" in config
    assert "10.0.0.1" not in config
    row = next(line for line in brief.splitlines() if line.startswith("GigabitEthernet0/0 "))
    assert row.split()[1:4] == ["10.0.0.1", "YES", "DHCP"]


async def test_ospf_plans_the_leased_subnet_and_pushes_it(tmp_path: Path, lab: Lab) -> None:
    chat = RecordingAdapter()
    async with running_bot(tmp_path, lab, chat) as bot:
        await bot.service.handle(ask("configure ospf on R1", "alice"))
        await bot.service.handle(click(chat, "bob"))
        _, gate = chat.last_gate()
        preview = gate.text + "\n".join(block.text for block in gate.blocks)
        assert " network 10.0.0.0 0.0.0.3 area 0" in preview, preview
        await bot.service.handle(click(chat, "bob"))
    assert "pushed: ✓ 1 ✗ 0 of 1" in chat.texts()[-1], chat.texts()[-1]
    assert " network 10.0.0.0 0.0.0.3 area 0" in lab.device("R1").running_config()


def test_a_leased_interface_needs_its_address() -> None:
    raw = {"devices": {"R1": {"interfaces": {"Gi0/0": {"dhcp": True}}}}}
    with pytest.raises(ValueError, match="dhcp needs the leased address"):
        topology_from_dict(raw)


async def test_a_refused_state_read_plans_from_the_config_and_the_gate_says_so(
    tmp_path: Path, lab: Lab, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A device that refuses the state read (here: asked for an interface it does not have) is
    planned from its configuration alone, which lacks the leased address; the gate says why."""
    monkeypatch.setitem(STATE_COMMANDS, "cisco_ios", "show interfaces GigabitEthernet9/9")
    chat = RecordingAdapter()
    async with running_bot(tmp_path, lab, chat) as bot:
        await bot.service.handle(ask("configure ospf on R1", "alice"))
        await bot.service.handle(click(chat, "bob"))
        _, gate = chat.last_gate()
    preview = gate.text + "\n".join(block.text for block in gate.blocks)
    assert "R1: its interfaces' state could not be read (`show interfaces GigabitEthernet9/9`" in (
        gate.text
    )
    assert "its addresses come from its configuration alone" in gate.text
    assert " network 10.0.100.0 0.0.0.255 area 0" in preview
    assert "network 10.0.0.0" not in preview
