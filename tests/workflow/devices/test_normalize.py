"""Verification knows how each platform rewrites what it accepts: a line the device took and
shows in its own form is verified; a line that is absent is reported. The FRR config is a real
`show running-config` of FRR 8.4.4 (R2 of the frrlab chain, OSPF and eBGP configured)."""

from __future__ import annotations

from pathlib import Path

import pytest

from workflow.devices.diffing import missing_lines
from workflow.devices.normalize import expand

FRR_RUNNING = (Path(__file__).parent / "fixtures" / "frr_R2_running_config.txt").read_text()
IOS_RUNNING = """\
Building configuration...
!
hostname R1
enable secret 9 $9$Fo0b4r$Qk1f3Z0q
username bob privilege 15 secret 9 $9$nN1cE$v8cJp
!
interface GigabitEthernet0/1
 description uplink to R2
 ip address 10.0.12.1 255.255.255.252
!
router ospf 1
 router-id 10.255.0.1
 network 10.0.12.0 0.0.0.3 area 0
!
line vty 0 4
 password 7 0822455D0A16
!
end
"""


@pytest.mark.parametrize(
    "pushed",
    [
        ["router ospf", " router-id 10.255.0.2"],  # shown as `ospf router-id`
        ["router ospf", " ospf router-id 10.255.0.2"],
        ["router ospf", " network 10.0.0.0/8 area 0.0.0.0"],  # shown as typed: `area 0`
        ["router ospf", " network 10.255.0.0/16 area 0", "exit"],  # typed dotted, checked as 0
        ["router bgp 65002", " network 10.255.0.2/32"],  # filed under address-family ipv4
        ["router bgp 65002", " no bgp ebgp-requires-policy", " neighbor 10.0.12.1 remote-as 65001"],
        ["interface eth1", " ip ospf hello-interval 1", "exit"],
    ],
)
def test_frr_rewrites_are_verified(pushed: list[str]) -> None:
    assert missing_lines(FRR_RUNNING, pushed, "frr_telnet") == []


@pytest.mark.parametrize(
    ("pushed", "missing"),
    [
        (["router ospf", " router-id 10.9.9.9"], ["router ospf > router-id 10.9.9.9"]),
        (
            ["router bgp 65002", " network 10.99.0.0/16"],
            ["router bgp 65002 > network 10.99.0.0/16"],
        ),
        (
            ["router ospf", " network 10.0.0.0/8 area 1"],
            ["router ospf > network 10.0.0.0/8 area 1"],
        ),
        (["ip route 192.0.2.0/24 Null0"], ["ip route 192.0.2.0/24 Null0"]),
    ],
)
def test_frr_absent_lines_are_failures(pushed: list[str], missing: list[str]) -> None:
    assert missing_lines(FRR_RUNNING, pushed, "frr") == missing


@pytest.mark.parametrize(
    "pushed",
    [
        ["int Gi0/1", " desc uplink to R2", " no shut"],  # abbreviated; no shutdown not shown
        ["interface Gi0/1", " ip add 10.0.12.1 255.255.255.252"],
        ["enable secret S3cret-pw"],  # shown hashed
        ["username bob privilege 15 secret 0 hunter22"],
        ["line vty 0 4", " password lab-pw"],
        ["router ospf 1", " network 10.0.12.0 0.0.0.3 area 0.0.0.0"],
    ],
)
def test_ios_rewrites_are_verified(pushed: list[str]) -> None:
    assert missing_lines(IOS_RUNNING, pushed, "cisco_ios_telnet") == []


@pytest.mark.parametrize(
    ("pushed", "missing"),
    [
        (["username alice secret pw"], ["username alice secret pw"]),
        (["int Gi0/2", " desc spare"], ["interface GigabitEthernet0/2"]),
        (["interface Gi0/1", " shutdown"], ["interface GigabitEthernet0/1 > shutdown"]),
    ],
)
def test_ios_absent_lines_are_failures(pushed: list[str], missing: list[str]) -> None:
    assert missing_lines(IOS_RUNNING, pushed, "cisco_ios")[: len(missing)] == missing


@pytest.mark.parametrize(
    ("line", "expanded"),
    [
        ("int Gi0/1", "interface GigabitEthernet0/1"),
        (" no shut", " no shutdown"),
        (" ip add 10.0.0.1 255.0.0.0", " ip address 10.0.0.1 255.0.0.0"),
        ("rou ospf 1", "rou ospf 1"),  # ambiguous (router, router-id): left for the device
        (" log-adjacency-changes", " log-adjacency-changes"),
    ],
)
def test_ios_abbreviations(line: str, expanded: str) -> None:
    assert expand("cisco_ios", line) == expanded
    assert expand("frr", line) == line  # vtysh lines are compared as typed
