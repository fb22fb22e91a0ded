"""Interfaces from a device's state, merged with its config: an address counts wherever it was
configured; a state that cannot be read or understood leaves the config's facts and says why."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from workflow.devices.facts import device_interfaces
from workflow.devices.interface_state import StateRead, interfaces_from_state, state_command

FIXTURES = Path(__file__).with_name("fixtures")
# FRR 8.4's `show interface json` on a router whose addresses were set with `ip addr` in its
# namespace (frrlab's kernel_addresses): its running config holds none of them.
FRR_STATE = (FIXTURES / "frr_R2_show_interface.json").read_text()
FRR_CONFIG = """frr version 8.4.4
hostname R2
interface eth0
 description to R1
exit
interface eth1
 description to R3
exit
"""
# IOS: a DHCP-leased interface; the config says `ip address dhcp`, `show interfaces` the address.
IOS_CONFIG = """hostname R1
interface Loopback0
 ip address 10.255.0.1 255.255.255.255
interface GigabitEthernet0/0
 ip address dhcp
interface GigabitEthernet0/1
 no ip address
 shutdown
"""
IOS_STATE = """Loopback0 is up, line protocol is up
  Hardware is Loopback
  Internet address is 10.255.0.1/32
  MTU 1514 bytes, BW 8000000 Kbit/sec, DLY 5000 usec,
GigabitEthernet0/0 is up, line protocol is up
  Hardware is iGbE, address is 5254.0012.3401 (bia 5254.0012.3401)
  Internet address is 10.0.99.7/24
  MTU 1500 bytes, BW 1000000 Kbit/sec, DLY 10 usec,
GigabitEthernet0/1 is administratively down, line protocol is down
  Hardware is iGbE, address is 5254.0012.3402 (bia 5254.0012.3402)
  MTU 1500 bytes, BW 1000000 Kbit/sec, DLY 10 usec,
"""
# EOS `show ip interface | json` in eAPI's shape (Arista's rbeapi `ipinterfaces.rb`, ANTA's
# VerifyInterfaceIPv4 data): Ethernet2 is shut down and has no address.
EOS_STATE = json.dumps(
    {
        "interfaces": {
            name: {
                "name": name,
                "lineProtocolStatus": "down" if status == "disabled" else "up",
                "interfaceStatus": status,
                "mtu": 1500,
                "interfaceAddress": {
                    "primaryIp": {"address": address, "maskLen": length},
                    "secondaryIpsOrderedList": [],
                    "virtualIp": {"address": "0.0.0.0", "maskLen": 0},
                    "broadcastAddress": "255.255.255.255",
                    "dhcp": name == "Management1",
                },
            }
            for name, address, length, status in (
                ("Ethernet1", "10.0.13.2", 30, "connected"),
                ("Ethernet2", "0.0.0.0", 0, "disabled"),
                ("Loopback0", "10.255.0.9", 32, "connected"),
                ("Management1", "192.168.0.14", 24, "connected"),
            )
        }
    }
)


def test_frr_addresses_set_outside_frr_count() -> None:
    interfaces, unread = device_interfaces("frr", FRR_CONFIG, StateRead("x", FRR_STATE))
    assert unread is None
    assert interfaces == [
        {"name": "eth0", "address": "10.0.12.2/30", "enabled": True},
        {"name": "eth1", "address": "10.0.23.1/30", "enabled": True},
        {"name": "lo", "address": "10.255.0.2/32", "enabled": True},  # not 127.0.0.1, not fe80::
    ]


def test_ios_dhcp_address_and_admin_state_from_show_interfaces() -> None:
    interfaces, unread = device_interfaces(
        "cisco_ios_telnet", IOS_CONFIG, StateRead(state_command("cisco_ios_telnet"), IOS_STATE)
    )
    assert unread is None
    assert interfaces == [
        {"name": "Loopback0", "address": "10.255.0.1/32", "enabled": True},
        {"name": "GigabitEthernet0/0", "address": "10.0.99.7/24", "enabled": True},
        {"name": "GigabitEthernet0/1", "address": None, "enabled": False},
    ]


def test_eos_interfaces_only_the_state_shows_are_added() -> None:
    config = "hostname SW1\ninterface Ethernet1\n   no switchport\n   ip address 10.0.13.2/30\n"
    interfaces, _ = device_interfaces("arista_eos", config, StateRead("x", EOS_STATE))
    assert [(i["name"], i["address"], i["enabled"]) for i in interfaces] == [
        ("Ethernet1", "10.0.13.2/30", True),
        ("Ethernet2", None, False),
        ("Loopback0", "10.255.0.9/32", True),
        ("Management1", "192.168.0.14/24", True),
    ]


@pytest.mark.parametrize(
    ("output", "said"),
    [
        ('{"Ethernet1": {}}', 'expected {"interfaces"'),
        ('{"interfaces": {"Ethernet1": ["10.0.0.1"]}}', "not the shape"),
        ("% Invalid input", "not JSON"),
    ],
)
def test_eos_output_not_in_eapi_s_shape_is_not_read(output: str, said: str) -> None:
    with pytest.raises(ValueError, match=re.escape(said)):
        interfaces_from_state("arista_eos", output)


def test_a_config_address_the_state_does_not_show_still_counts() -> None:
    state = '{"eth0": {"administrativeStatus": "up", "ipAddresses": []}}'
    config = "interface eth0\n ip address 10.0.0.1/30\nexit\n"
    interfaces, _ = device_interfaces("frr", config, StateRead("x", state))
    assert interfaces == [{"name": "eth0", "address": "10.0.0.1/30", "enabled": True}]


@pytest.mark.parametrize(
    ("state", "said"),
    [
        (StateRead("show interface json", problem="% Unknown command"), "% Unknown command"),
        (StateRead("show interface json", "% Unknown command: show"), "cannot read"),
        (StateRead(None, problem="labbot knows no read"), "labbot knows no read"),
        (None, "not read"),
    ],
)
def test_an_unread_state_falls_back_to_the_config_and_says_why(
    state: StateRead | None, said: str
) -> None:
    config = "interface eth0\n ip address 10.0.0.1/30\nexit\n"
    interfaces, unread = device_interfaces("frr", config, state)
    assert interfaces == [{"name": "eth0", "address": "10.0.0.1/30", "enabled": True}]
    assert unread is not None and said in unread


def test_unknown_platform_has_no_state_read() -> None:
    assert state_command("nokia_sros") is None
    assert state_command("frr_telnet") == "show interface json"
    with pytest.raises(ValueError, match="not JSON"):
        interfaces_from_state("frr", "garbage")
