"""The CLI engine without a network: what a user typing at the console would see."""

from __future__ import annotations

import pytest

from labsim import Fault, SimDevice, demo_topology
from labsim.cli import CliSession

TOPOLOGY = demo_topology(2)


def session(name: str = "R1", *, privileged: bool = True) -> CliSession:
    spec = TOPOLOGY.device(name)
    peers = {i.name: p for i in spec.interfaces if (p := TOPOLOGY.peer(name, i.name))}
    return CliSession(SimDevice.from_spec(spec, peers), privileged=privileged, secret="s3cret")


def typed(cli: CliSession, *lines: str) -> str:
    return "".join(cli.feed_line(line) for line in lines)


def test_prompts_follow_the_modes() -> None:
    cli = session(privileged=False)
    assert cli.greeting().endswith("R1>")
    out = typed(cli, "enable", "s3cret", "conf t", "int gi0/2", "exit", "router ospf 1")
    assert "Password: " in out and "s3cret" not in out
    assert out.endswith("R1(config-router)#")
    for line, prompt in [
        ("line vty 0 4", "R1(config-line)#"),
        ("vlan 10", "R1(config-vlan)#"),
        ("ip access-list extended WEB", "R1(config-ext-nacl)#"),
        ("end", "R1#"),
        ("disable", "R1>"),
    ]:
        assert typed(cli, line).endswith(prompt), line
    assert "s3cret" not in cli.device.commands_seen


def test_wrong_enable_secret_is_refused() -> None:
    cli = session(privileged=False)
    out = typed(cli, "enable", "guess")
    assert "% Access denied" in out and out.endswith("R1>")


def test_config_changes_show_in_running_config_and_no_removes_them() -> None:
    cli = session()
    typed(
        cli,
        "configure terminal",
        "interface GigabitEthernet0/2",
        "description uplink",
        "ip address 192.0.2.1 255.255.255.0",
        "no shutdown",
        "router ospf 1",
        "router-id 10.255.0.1",
        "network 192.0.2.0 0.0.0.255 area 0",
        "ip route 0.0.0.0 0.0.0.0 192.0.2.254",  # leaves router mode like IOS does
        "ntp server 192.0.2.123",
        "hostname EDGE1",
        "end",
    )
    run = typed(cli, "show running-config")
    interface = "interface GigabitEthernet0/2\n description uplink\n"
    assert interface + " ip address 192.0.2.1 255.255.255.0\n!" in run
    assert "router ospf 1\n router-id 10.255.0.1\n network 192.0.2.0 0.0.0.255 area 0\n" in run
    assert "\nip route 0.0.0.0 0.0.0.0 192.0.2.254\n" in run and "\nntp server 192.0.2.123\n" in run
    assert run.endswith("end\nEDGE1#")
    typed(cli, "conf t", "no router ospf 1", "no ntp server 192.0.2.123", "interface Gi0/2")
    typed(cli, "no ip address 192.0.2.1 255.255.255.0", "shutdown", "end")
    run = typed(cli, "show running-config")
    assert "router ospf" not in run and "ntp server" not in run
    assert "interface GigabitEthernet0/2\n description uplink\n no ip address\n shutdown\n" in run


def test_a_new_address_replaces_the_old_one() -> None:
    cli = session()
    typed(cli, "conf t", "int Gi0/0", "ip add 10.9.9.1 255.255.255.0", "end")
    block = typed(cli, "show running-config interface Gi0/0")
    assert " ip address 10.9.9.1 255.255.255.0\n" in block
    assert "10.0.0.1" not in block


def test_multi_line_banner_is_kept_verbatim() -> None:
    cli = session()
    out = typed(cli, "conf t", "banner motd ^", "Authorised users only", "  second line", "^")
    assert "End with the character '^'." in out and out.endswith("R1(config)#")
    run = typed(cli, "do show running-config")
    assert "banner motd ^C\nAuthorised users only\n  second line\n^C\n" in run
    typed(cli, "no banner motd")
    assert "banner" not in typed(cli, "do show run")


@pytest.mark.parametrize(
    ("line", "column"),
    [
        ("frobnicate now", 11),  # unknown first word: caret under it (after "R1(config)#")
        ("ip address 10.0.0.1/24", 22),  # IOS wants a mask; caret under the address
        ("vlan 5000", 16),
    ],
)
def test_nonsense_gets_invalid_input_with_caret(line: str, column: int) -> None:
    cli = session()
    typed(cli, "conf t")
    out = typed(cli, line)
    assert f"\n{' ' * column}^\n% Invalid input detected at '^' marker.\n" in out
    assert line not in typed(cli, "do show run")


def test_exec_abbreviations_and_pipes() -> None:
    cli = session()
    brief = typed(cli, "sh ip int br")
    assert "GigabitEthernet0/0         10.0.0.1        YES NVRAM  up" in brief
    assert "GigabitEthernet0/3         unassigned      YES unset  administratively down" in brief
    assert typed(cli, "sh run | i hostname") == "sh run | i hostname\nhostname R1\nR1#"
    assert "% Invalid input" in typed(cli, "show nonsense")
    assert "IOSv" in typed(cli, "show version")
    routes = typed(cli, "show ip route")
    assert "C        10.0.0.0/30 is directly connected, GigabitEthernet0/0" in routes
    assert "!!!!!" in typed(cli, "ping 10.0.0.2") and "....." in typed(cli, "ping 192.0.2.9")


def test_write_memory_saves_the_startup_config() -> None:
    cli = session()
    typed(cli, "conf t", "snmp-server community lab RO", "end")
    assert "snmp-server" not in cli.device.startup_config()
    assert "[OK]" in typed(cli, "wr")
    assert "snmp-server community lab RO" in cli.device.startup_config()
    typed(cli, "conf t", "no snmp-server community lab RO", "end")
    out = typed(cli, "copy running-config startup-config")
    assert out.endswith("Destination filename [startup-config]? ")
    assert "[OK]" in typed(cli, "")
    assert "snmp-server" not in cli.device.startup_config()


def test_exit_in_exec_mode_ends_the_session() -> None:
    cli = session()
    typed(cli, "exit")
    assert cli.closed


def test_arista_style() -> None:
    cli = session("SW1", privileged=False)
    out = typed(cli, "enable", "s3cret", "terminal length 0", "terminal width 511")
    assert "Pagination disabled." in out and "Width set to 511 columns." in out
    out = typed(cli, "configure terminal", "interface Ethernet2", "no switchport")
    assert out.endswith("SW1(config-if-Et2)#")
    assert "% Invalid input" in typed(cli, "ip address 10.3.3.1 255.255.255.0")
    typed(cli, "ip address 10.3.3.1/24", "vlan 30", "name guests", "end")
    run = typed(cli, "show running-config")
    assert "interface Ethernet2\n   no switchport\n   ip address 10.3.3.1/24\n" in run
    typed(cli, "configure terminal", "interface Ethernet2", "switchport", "end")
    assert "interface Ethernet2\n   ip address 10.3.3.1/24\n!" in typed(cli, "show run")
    assert "vlan 30\n   name guests\n" in run
    assert run.startswith("show running-config\n! Command: show running-config\n")
    assert "Copy completed successfully." in typed(cli, "copy running-config startup-config")


def test_device_from_another_devices_running_config() -> None:
    cli = session()
    typed(cli, "conf t", "router bgp 65001", "neighbor 10.0.0.2 remote-as 65002")
    typed(cli, "address-family ipv4", "neighbor 10.0.0.2 activate", "end")
    typed(cli, "conf t", "banner motd ^", "hello", "^", "end")
    text = cli.device.running_config()
    copy = SimDevice.from_running_config("R9", "cisco_ios", text)
    assert copy.running_config() == text
    assert "  neighbor 10.0.0.2 activate\n" in text


def test_drop_after_applies_n_lines_then_ends_silently() -> None:
    spec = TOPOLOGY.device("R2")
    device = SimDevice.from_spec(spec, {})
    device.fault = Fault("drop_after", 1)
    cli = CliSession(device, privileged=True, secret="")
    typed(cli, "configure terminal", "ntp server 192.0.2.1")
    assert not cli.closed
    assert typed(cli, "ntp server 192.0.2.2") == "" and cli.closed
    assert "192.0.2.1" in device.running_config() and "192.0.2.2" not in device.running_config()


def test_drop_at_exit_applies_every_line_then_ends_silently_at_end() -> None:
    device = SimDevice.from_spec(TOPOLOGY.device("R2"), {})
    device.fault = Fault("drop_at_exit")
    cli = CliSession(device, privileged=True, secret="")
    typed(cli, "configure terminal", "vlan 42", "name LABTEST")
    assert not cli.closed
    assert typed(cli, "end") == "" and cli.closed
    assert "vlan 42\n name LABTEST" in device.running_config()


def test_drop_read_back_drops_config_reads_once_the_device_was_configured() -> None:
    device = SimDevice.from_spec(TOPOLOGY.device("R2"), {})
    device.fault = Fault("drop_read_back")
    cli = CliSession(device, privileged=True, secret="")
    assert "hostname" in typed(cli, "show running-config")  # the backup before a push reads
    typed(cli, "configure terminal", "ntp server 192.0.2.1", "end")
    assert not cli.closed
    assert typed(cli, "sh run") == "" and cli.closed
    again = CliSession(device, privileged=True, secret="")
    assert typed(again, "show running-config") == "" and again.closed  # a fresh session too
