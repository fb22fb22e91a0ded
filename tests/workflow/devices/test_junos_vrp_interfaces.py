"""Junos and VRP interfaces: Junos from its configuration (braces or `set` lines, by logical
unit) and `show interfaces | display json`, VRP from `display interface` (ntc-templates), each
merged with the configuration; output in neither shape is refused and the configuration alone
is used, saying why."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from workflow.devices.facts import device_interfaces, interfaces_from_config
from workflow.devices.interface_state import StateRead, interfaces_from_state, state_command

FIXTURES = Path(__file__).with_name("fixtures")
# Junos `show interfaces | display json` in Juniper's shape (every element a list of objects,
# text under "data"; ifa-destination abbreviated as Junos prints it), followed by the
# `{master:0}` line a chassis member prints: ge-0/0/0.0 has a DHCP lease, ge-0/0/1 is disabled.
JUNOS_STATE = (FIXTURES / "junos_J1_show_interfaces.json").read_text()
# VRP `display interface` in the shape of ntc-templates' huawei_vrp tests: GigabitEthernet0/0/0
# is addressed by DHCP, GigabitEthernet0/0/1 shut down.
VRP_STATE = (FIXTURES / "vrp_V1_display_interface.txt").read_text()
JUNOS_CONFIG = """## Last commit: 2026-01-05 09:10:00 UTC by admin
version 23.2R1.13;
system {
    host-name J1;
}
interfaces {
    ge-0/0/0 {
        description "to R1";
        unit 0 {
            family inet {
                dhcp;
            }
        }
    }
    ge-0/0/1 {
        disable;
        unit 0 {
            family inet {
                address 10.0.13.1/30;
            }
        }
    }
    lo0 {
        unit 0 {
            family inet {
                address 192.0.2.1/32;
            }
        }
    }
}
"""
JUNOS_SET_CONFIG = """set version 23.2R1.13
set system host-name J1
set interfaces ge-0/0/0 unit 0 family inet dhcp
set interfaces ge-0/0/1 unit 0 disable
set interfaces ge-0/0/1 unit 0 family inet address 10.0.13.1/30
set interfaces ge-0/0/1 unit 0 family inet address 10.0.14.1/30
set interfaces lo0 unit 0 family inet address 192.0.2.1/32
"""
VRP_CONFIG = """#
sysname V1
#
interface GigabitEthernet0/0/0
 description to R1
 ip address dhcp-alloc
#
interface GigabitEthernet0/0/1
 shutdown
 ip address 10.0.13.1 255.255.255.252
#
interface LoopBack0
 ip address 192.0.2.2 255.255.255.255
#
return
"""


def test_junos_braces_configuration_by_logical_unit() -> None:
    assert interfaces_from_config(JUNOS_CONFIG, "juniper_junos") == [
        {"name": "ge-0/0/0.0", "address": None, "enabled": True},
        {"name": "ge-0/0/1.0", "address": "10.0.13.1/30", "enabled": False},
        {"name": "lo0.0", "address": "192.0.2.1/32", "enabled": True},
    ]


def test_junos_set_configuration_first_address_and_disabled_unit() -> None:
    assert interfaces_from_config(JUNOS_SET_CONFIG, "juniper_junos_ssh") == [
        {"name": "ge-0/0/0.0", "address": None, "enabled": True},
        {"name": "ge-0/0/1.0", "address": "10.0.13.1/30", "enabled": False},
        {"name": "lo0.0", "address": "192.0.2.1/32", "enabled": True},
    ]


def test_junos_dhcp_address_from_display_json_merged_with_the_config() -> None:
    command = state_command("juniper_junos")
    assert command == "show interfaces | display json"
    interfaces, unread = device_interfaces(
        "juniper_junos", JUNOS_CONFIG, StateRead(command, JUNOS_STATE)
    )
    assert unread is None
    assert interfaces == [
        {"name": "ge-0/0/0.0", "address": "10.0.99.7/24", "enabled": True},
        {"name": "ge-0/0/1.0", "address": "10.0.13.1/30", "enabled": False},
        {"name": "lo0.0", "address": "192.0.2.1/32", "enabled": True},
        {"name": "lo0.16384", "address": None, "enabled": True},  # 127.0.0.1 is not usable
    ]


def test_vrp_dhcp_address_and_admin_state_from_display_interface() -> None:
    command = state_command("huawei")
    assert command == state_command("huawei_vrp") == "display interface"
    interfaces, unread = device_interfaces("huawei", VRP_CONFIG, StateRead(command, VRP_STATE))
    assert unread is None
    assert interfaces == [
        {"name": "GigabitEthernet0/0/0", "address": "10.0.99.7/24", "enabled": True},
        {"name": "GigabitEthernet0/0/1", "address": "10.0.13.1/30", "enabled": False},
        {"name": "LoopBack0", "address": "192.0.2.2/32", "enabled": True},
        {"name": "GigabitEthernet0/0/2", "address": None, "enabled": True},
        {"name": "NULL0", "address": None, "enabled": True},
    ]


@pytest.mark.parametrize(
    ("output", "said"),
    [
        ('{"interfaces": {}}', 'expected {"interface-information"'),
        ('{"interface-information": [{"physical-interface": [{"name": "ge-0/0/0"}]}]}', "shape"),
        ('{"interface-information": [{"physical-interface": [{}]}]}', "'admin-status'"),
        ("error: syntax error, expecting <command>: json", "not JSON"),
        (JUNOS_STATE + "{master:0}\n", "not JSON"),  # only one chassis line follows the JSON
    ],
)
def test_junos_output_not_in_juniper_s_shape_is_refused(output: str, said: str) -> None:
    with pytest.raises(ValueError, match=re.escape(said)):
        interfaces_from_state("juniper_junos", output)


@pytest.mark.parametrize(
    ("output", "said"),
    [
        ("Error: Unrecognized command found at '^' position.", "not the shape"),
        ("Info: no interface here", "not the shape"),
    ],
)
def test_vrp_output_not_in_the_template_s_shape_is_refused(output: str, said: str) -> None:
    with pytest.raises(ValueError, match=re.escape(said)):
        interfaces_from_state("huawei_vrp", output)


def test_unreadable_vrp_state_falls_back_to_the_config_and_says_so() -> None:
    state = StateRead("display interface", "Error: Unrecognized command found at '^' position.")
    interfaces, unread = device_interfaces("huawei", VRP_CONFIG, state)
    assert [i["address"] for i in interfaces] == [None, "10.0.13.1/30", "192.0.2.2/32"]
    assert unread is not None and unread.startswith("`display interface` gave what labbot")
