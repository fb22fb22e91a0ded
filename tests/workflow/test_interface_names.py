"""The interfaces a change's lines open that the device does not have, as the preview warns."""

from __future__ import annotations

from workflow.model import DeviceFacts, InterfaceFacts
from workflow.templates.interface_names import missing_interfaces


def facts(family: str, *names: str) -> DeviceFacts:
    interfaces = [InterfaceFacts(name=name, address=None, enabled=True) for name in names]
    return DeviceFacts(
        name="SW1", platform=family, family=family, interfaces=interfaces, running_config=""
    )


def test_a_port_the_switch_lacks_is_named_with_the_closest_it_has() -> None:
    switch = facts("cisco_ios", *(f"FastEthernet0/{n}" for n in range(1, 13)), "GigabitEthernet0/1")
    lines = ["interface GigabitEthernet9/9", " description uplink", "interface fa0/3", " shutdown"]
    assert missing_interfaces(lines, switch) == {"GigabitEthernet9/9": "GigabitEthernet0/1"}


def test_interfaces_configuration_creates_are_not_warned_of() -> None:
    router = facts("cisco_ios", "GigabitEthernet0/0")
    lines = ["interface Loopback7", "interface Vlan10", "interface Tunnel1", "interface Po2"]
    assert missing_interfaces(lines, router) == {}
    assert missing_interfaces(["interface lo", "interface eth9"], facts("frr", "eth0")) == {
        "eth9": "eth0"
    }


def test_a_device_whose_interfaces_were_not_read_is_not_second_guessed() -> None:
    assert missing_interfaces(["interface GigabitEthernet9/9"], facts("cisco_ios")) == {}
