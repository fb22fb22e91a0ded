"""Interface facts parsed from running configs of both vendor styles."""

from __future__ import annotations

from workflow.devices.facts import interfaces_from_config

IOS = """hostname R1
interface Loopback0
 ip address 1.1.1.1 255.255.255.255
interface GigabitEthernet0/0
 description to R2
 ip address 10.0.12.1 255.255.255.252
 ip address 10.5.5.1 255.255.255.0 secondary
interface GigabitEthernet0/1
 no ip address
 shutdown
router ospf 1
 network 10.0.12.0 0.0.0.3 area 0
"""

EOS = """hostname SW1
interface Ethernet1
   no switchport
   ip address 10.0.13.2/30
interface Management1
   ip address dhcp
"""


def test_ios_interfaces_with_primary_address_and_state() -> None:
    assert interfaces_from_config(IOS) == [
        {"name": "Loopback0", "address": "1.1.1.1/32", "enabled": True},
        {"name": "GigabitEthernet0/0", "address": "10.0.12.1/30", "enabled": True},
        {"name": "GigabitEthernet0/1", "address": None, "enabled": False},
    ]


def test_eos_prefix_length_addresses() -> None:
    assert interfaces_from_config(EOS) == [
        {"name": "Ethernet1", "address": "10.0.13.2/30", "enabled": True},
        {"name": "Management1", "address": None, "enabled": True},
    ]
