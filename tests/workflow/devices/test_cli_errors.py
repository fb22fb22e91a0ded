"""What counts as a CLI error reply, per platform: for reads and for pushed lines."""

from __future__ import annotations

import re

import pytest

from workflow.devices.cli_errors import config_error_pattern, dialect, error_reply, has_enable

IOS_REFUSAL = "show running-config\n        ^\n% Invalid input detected at '^' marker.\n"
# a VRP device (and fake-switches' and FakeNOS's recordings of one) refusing a read
VRP_REFUSAL = "              ^\nError: Unrecognized command found at '^' position.\n"


@pytest.mark.parametrize(
    ("platform", "output", "reply"),
    [
        ("cisco_ios", IOS_REFUSAL, "% Invalid input detected at '^' marker."),
        ("cisco_ios_telnet", "% Incomplete command.\n", "% Incomplete command."),
        ("cisco_ios", '% Ambiguous command:  "sh r"\n', '% Ambiguous command:  "sh r"'),
        ("cisco_ios", "% Authorization failed.\n", "% Authorization failed."),
        ("cisco_ios", "% Access denied\n", "% Access denied"),
        ("cisco_xe", "%Unknown command or computer name\n", "%Unknown command or computer name"),
        ("arista_eos", "% Invalid input (privileged mode required)\n", None),
        ("arista_eos", "% Unavailable command (not supported on this hardware platform)\n", None),
        ("juniper_junos", "                  ^\nsyntax error, expecting <command>.\n", None),
        ("juniper_junos", "error: configuration database locked\n", None),
        ("frr", "% Unknown command: show ip ospf neighbour\n", None),
        ("frr_telnet", "% Command incomplete: show ip\n", None),
        ("frr", "BGP is already running; AS is 65001\n", None),
        ("frr", "There is already same network statement.\n", None),
        ("juniper_junos", "\nunknown command.\n", None),
        ("juniper_junos_telnet", "Unknown command\n", None),  # FakeNOS's default reply
        ("huawei", VRP_REFUSAL, "Error: Unrecognized command found at '^' position."),
        ("huawei_telnet", "Error: Wrong parameter found at '^' position.\n", None),
        ("huawei_vrpv8", "Error: Incomplete command found at '^' position.\n", None),
        ("hp_comware", "% Unrecognized command found at '^' position.\n", None),
        ("linux", "bash: show: command not found\n", None),
        ("linux", "-sh: display: not found\n", None),
        ("linux_ssh", "sh: 1: show: not found\n", None),
    ],
)
def test_error_replies_are_recognised(platform: str, output: str, reply: str | None) -> None:
    expected = reply or output.strip().splitlines()[-1].strip()
    assert error_reply(platform, output) == expected


@pytest.mark.parametrize(
    ("platform", "output"),
    [
        ("cisco_ios", "Building configuration...\n\nCurrent configuration : 99 bytes\n!\n"),
        # quoted further down a real config: a banner, a description
        ("cisco_ios", "!\nhostname R1\n!\nbanner motd ^C\n% Access denied to strangers\n^C\n"),
        ("cisco_ios", "interface Gi0/0\n description % Invalid input\n"),
        ("frr", '{\n  "neighbors":{}\n}\n'),
        ("frr", "Building configuration...\n\nCurrent configuration:\n!\nfrr version 8.4.4\n"),
        ("juniper_junos", "## Last commit: 2026-01-01\nversion 21.1;\n"),
        ("huawei", "!Software Version V800R011C00SPC607B607\n#\nsysname R1\n#\n"),
        # a running config quoting an error further down (an interface's description)
        ("huawei", "#\nsysname R1\n#\ninterface GE0/0/1\n description Error: none\n"),
        ("linux", "PING 10.0.0.1 (10.0.0.1) 56(84) bytes of data.\n"),
        ("cisco_ios", "bash: show: command not found\n"),  # not IOS's own words
        ("cisco_ios", ""),
    ],
)
def test_real_output_is_not_an_error(platform: str, output: str) -> None:
    assert error_reply(platform, output) is None


@pytest.mark.parametrize(
    ("platform", "session", "refused"),
    [
        ("cisco_ios", "R1(config)#router osp 1\n             ^\n% Invalid input detected", True),
        ("cisco_ios", "R1(config-if)# description Error budget link\nR1(config-if)#", False),
        ("frr", "R1(config-router)# router bgp 65002\nBGP is already running; AS is 65001", True),
        (
            "frr",
            "R1(config-router)# network 10.0.0.0/24 area 0\n"
            "There is already same network statement.",
            True,
        ),
        ("frr", "R1(config)# router ospf\nR1(config-router)#", False),
        ("cisco_ios", "R1(config-router)#network 10.0.0.0/24 area 0\nThere is already same", False),
        ("huawei", "[R1-ospf-1]aera 0\n          ^\nError: Unrecognized command found", True),
        ("huawei", "[R1]interface GigabitEthernet0/0/1\n[R1-GigabitEthernet0/0/1]", False),
    ],
)
def test_push_error_pattern_per_platform(platform: str, session: str, refused: bool) -> None:
    assert bool(re.search(config_error_pattern(platform), session, flags=re.M)) is refused


@pytest.mark.parametrize(
    ("platform", "dialect_of", "enable"),
    [
        ("cisco_ios_telnet", "ios", True),
        ("arista_eos", "ios", True),
        ("cisco_nxos", "ios", True),
        ("frr", "frr", True),  # vtysh with an enable password
        ("juniper_junos", "junos", False),
        ("huawei", "vrp", False),
        ("hp_comware_telnet", "vrp", False),
        ("linux", "linux", False),
    ],
)
def test_each_platform_speaks_one_dialect(platform: str, dialect_of: str, enable: bool) -> None:
    assert (dialect(platform), has_enable(platform)) == (dialect_of, enable)
