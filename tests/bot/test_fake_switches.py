"""A VLAN pushed to fake-switches' Cisco switch, an independent simulator, over SSH.

Its Cisco models answer no `end`: netmiko applies the lines, then fails to leave configuration
mode. labbot reads the switch back and records what landed (both lines), tells it in the thread
and the audit, and offers the rollback gate, which undoes the VLAN.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from bot.cli.demo import DEMO_CREDENTIALS, demo_settings
from bot.runtime.wiring import open_runtime
from bot.settings import load_settings
from tests.bot.chat import THREAD, RecordingAdapter, ask, click
from tests.fakes.fake_switch import FakeSwitch, fake_switch
from workflow.devices.inventories.static import StaticInventory

VLAN = "add vlan 42 name LABTEST on SW1"
LANDED = "landed 2 of 2 lines on SW1: vlan 42; vlan 42 > name LABTEST; the session failed at exit"


@pytest.fixture
def switch() -> Iterator[FakeSwitch]:
    with fake_switch("SW1", **DEMO_CREDENTIALS) as switch:
        yield switch


def inventory(path: Path, switch: FakeSwitch) -> Path:
    host = {"hostname": "127.0.0.1", "port": switch.port, "platform": "cisco_ios"}
    path.write_text(yaml.safe_dump({switch.name: {**host, "data": {"vendor": "cisco_ios"}}}))
    return path


async def test_a_vlan_that_landed_before_a_failed_exit_is_recorded_and_undoable(
    tmp_path: Path, switch: FakeSwitch
) -> None:
    chat = RecordingAdapter()
    settings = demo_settings(load_settings(data_dir=tmp_path))
    hosts = StaticInventory(inventory(tmp_path / "hosts.yaml", switch))
    async with open_runtime(settings, chat, inventory=hosts) as bot:
        await bot.service.handle(ask(VLAN, "alice"))
        await bot.service.handle(click(chat, "bob"))  # the template
        await bot.service.handle(click(chat, "bob"))  # execute
        _, gate = chat.last_gate()
        change = await bot.audit.latest_change_for_thread(THREAD.key)
        assert change is not None
        at_gate = await bot.audit.change_summary(change.change_id)
        await bot.service.handle(click(chat, "bob"))  # roll back
        await bot.service.handle(ask("show running-config on SW1", "carol"))
    shown = "\n".join([chat.texts()[-1], *(b.text for b in chat.messages()[-1].blocks)])
    ended = next(text for text in chat.texts() if text.startswith("Change "))

    assert "*The push broke off* for change" in gate.text and LANDED in gate.text, gate.text
    assert {button.choice for button in gate.buttons} == {"approve", "cancel"}
    assert at_gate is not None
    (row,) = [push for push in at_gate.pushes if push.device == "SW1"]
    assert row.detail.startswith(LANDED), row.detail
    assert "no vlan 42" in "\n".join(b.text for b in gate.blocks)
    # the rollback's own exit fails alike; the switch holds `no vlan 42`: rolled back
    assert "the push broke off; what landed was rolled back as approved by bob." in ended
    assert "vlan 42" not in shown and "LABTEST" not in shown  # rolled back, read on the switch


async def test_an_interface_the_switch_does_not_have_is_warned_of_at_the_gate(
    tmp_path: Path, switch: FakeSwitch
) -> None:
    """fake-switches' switch has FastEthernet0/1-12 and GigabitEthernet0/1-2: GigabitEthernet9/9
    is none of them, and the params gate says so before anyone presses Execute."""
    chat = RecordingAdapter()
    settings = demo_settings(load_settings(data_dir=tmp_path))
    hosts = StaticInventory(inventory(tmp_path / "hosts.yaml", switch))
    wanted = '[{"interface":"GigabitEthernet9/9","description":"uplink"}]'
    request = f"apply interface_description to SW1 descriptions={wanted}"
    async with open_runtime(settings, chat, inventory=hosts) as bot:
        await bot.service.handle(ask(request, "alice"))
        await bot.service.handle(click(chat, "bob"))  # the template
        _, gate = chat.last_gate()
    assert "Step 2 of 2" in gate.text, chat.texts()[-1][-1500:]
    assert "SW1 has no interface GigabitEthernet9/9 (the closest it has: " in gate.text, gate.text
