"""Cisco IOS (IOSv 15.9 look-alike): boot configuration, show output; its modes are
`base.grammar.ios`."""

from __future__ import annotations

import re
import zlib

from base.grammar import ios as ios_grammar
from labsim import shows
from labsim.configtree import TreeRules
from labsim.platform import DeviceView, Platform, ios_style_invalid
from labsim.spec import DeviceSpec

RULES = TreeRules(
    indent=" ",
    separator="!",
    sections=re.compile(
        r"^(interface|router|vlan \d|ip access-list|ip dhcp pool|route-map|control-plane|banner)\b"
    ),
    single_valued=tuple(
        re.compile(p)
        for p in (
            r"^hostname\b",
            r"^description\b",
            r"^ip address(?!.*secondary$)",
            r"^name\b",
            r"^(bgp )?router-id\b",
            r"^(ip )?mtu\b",
            r"^(bandwidth|speed|duplex|encapsulation|exec-timeout|login|password)\b",
            r"^ip ospf (cost|network|priority|hello-interval|dead-interval)\b",
            r"^ip ospf \d+ area\b",
            r"^switchport (mode|access vlan|trunk native vlan)\b",
            r"^neighbor \S+ (remote-as|description|update-source)\b",
            r"^(enable secret|enable password|ip domain name|ip domain-name|clock timezone)\b",
            r"^(snmp-server (location|contact)|spanning-tree mode|transport input)\b",
            r"^(auto-cost reference-bandwidth|maximum-paths|log-adjacency-changes)\b",
            r"^banner (motd|login|exec)\b",
        )
    ),
    shown_negations=(
        "no ip address",
        "no ip domain lookup",
        "no ip http server",
        "no ip http secure-server",
        "no service pad",
        "no aaa new-model",
        "no cdp run",
        "no ip routing",
        "no ipv6 cef",
        "no logging console",
        "no auto-summary",
    ),
    order=(
        "version",
        "service",
        "hostname",
        "boot-start-marker",
        "boot-end-marker",
        "vrf",
        "logging",
        "enable",
        "aaa",
        "clock",
        "ip domain",
        "ip name-server",
        "ip cef",
        "ipv6",
        "multilink",
        "username",
        "redundancy",
        "vlan",
        "spanning-tree",
        "class-map",
        "policy-map",
        "interface",
        "router",
        "ip forward-protocol",
        "ip http",
        "ip route",
        "ip access-list",
        "ip prefix-list",
        "access-list",
        "route-map",
        "snmp-server",
        "control-plane",
        "banner",
        "line",
        "ntp",
    ),
    footer="end",
    hidden_defaults=frozenset({"ip routing", "auto-summary", "cdp run", "ip domain lookup"}),
)


def banner_start(line: str) -> str | None:
    """`banner motd ^C` opens a banner closed by the same delimiter (stored as `^C`)."""
    match = re.match(r"^banner (motd|login|exec) (\^C|\S)", line)
    return match.group(2) if match else None


def initial_config(spec: DeviceSpec) -> str:
    """What a freshly booted IOSv with this topology entry shows in `show running-config`."""
    lines = [
        "version 15.9",
        "service timestamps debug datetime msec",
        "service timestamps log datetime msec",
        "no service password-encryption",
        "!",
        f"hostname {spec.name}",
        "!",
        "boot-start-marker",
        "boot-end-marker",
        "!",
        "no aaa new-model",
        "!",
        "no ip domain lookup",
        "ip cef",
        "no ipv6 cef",
        "!",
    ]
    for interface in spec.interfaces:
        lines.append(f"interface {interface.name}")
        if interface.description:
            lines.append(f" description {interface.description}")
        if interface.dhcp:
            lines.append(" ip address dhcp")
        elif interface.address is None:
            lines.append(" no ip address")
        else:
            lines.append(f" ip address {interface.address.ip} {interface.address.netmask}")
        if not interface.enabled:
            lines.append(" shutdown")
        lines.append("!")
    lines += ["ip forward-protocol nd", "!", "no ip http server", "!", "control-plane", "!"]
    lines += ["line con 0", "line aux 0", "line vty 0 4", " login local", " transport input all"]
    return "\n".join([*lines, "!", "end", ""])


def show_run_header(device: DeviceView, body: str) -> str:
    return f"Building configuration...\n\nCurrent configuration : {len(body)} bytes\n!\n"


def show_version(device: DeviceView, args: list[str]) -> str:
    ports = sum(1 for i in device.interfaces if i.name.startswith("GigabitEthernet"))
    return (
        "Cisco IOS Software, IOSv Software (VIOS-ADVENTERPRISEK9-M), Version 15.9(3)M4, "
        "RELEASE SOFTWARE (fc3)\n"
        "Technical Support: http://www.cisco.com/techsupport\n"
        "Copyright (c) 1986-2021 by Cisco Systems, Inc.\n\n"
        "ROM: Bootstrap program is IOSv\n\n"
        f"{device.hostname} uptime is 1 hour, 0 minutes\n"
        'System image file is "flash0:/vios-adventerprisek9-m"\n\n'
        "cisco IOSv (revision 1.0) with 460033K/62464K bytes of memory.\n"
        f"Processor board ID 9{zlib.crc32(device.name.encode()) % 10**9:09d}\n"
        f"{ports} Gigabit Ethernet interfaces\n"
        "Configuration register is 0x0\n"
    )


def show_ip_interface_brief(device: DeviceView, args: list[str]) -> str:
    rows = [f"{'Interface':<27}{'IP-Address':<16}OK? Method Status                Protocol"]
    for interface in device.interfaces:
        address = str(interface.address.ip) if interface.address else "unassigned"
        method = "DHCP" if interface.leased else "NVRAM" if interface.address else "unset"
        status = "up" if interface.enabled else "administratively down"
        protocol = "up" if interface.link_up else "down"
        if interface.enabled and not interface.link_up:
            status = "down"
        rows.append(f"{interface.name:<27}{address:<16}YES {method:<7}{status:<22}{protocol}")
    return "\n".join(rows) + "\n"


def show_interfaces(device: DeviceView, args: list[str]) -> str:
    wanted = device.cli.canonical_interface(" ".join(args)) if args else None
    blocks = []
    for index, interface in enumerate(device.interfaces):
        if wanted and interface.name != wanted:
            continue
        state = "up" if interface.enabled else "administratively down"
        protocol = "up" if interface.link_up else "down"
        lines = [f"{interface.name} is {state}, line protocol is {protocol}"]
        lines.append(f"  Hardware is iGbE, address is 5254.00{index:02x}.{len(device.name):04x}")
        if interface.description:
            lines.append(f"  Description: {interface.description}")
        if interface.address:
            lines.append(f"  Internet address is {interface.address.with_prefixlen}")
        lines.append("  MTU 1500 bytes, BW 1000000 Kbit/sec, DLY 10 usec,")
        blocks.append("\n".join(lines))
    if wanted and not blocks:
        return ios_style_invalid(len("show interfaces "))
    return "\n".join(blocks) + "\n"


def show_ip_route(device: DeviceView, args: list[str]) -> str:
    header = (
        "Codes: L - local, C - connected, S - static, R - RIP, M - mobile, B - BGP\n"
        "       O - OSPF, IA - OSPF inter area\n\n"
        "Gateway of last resort is not set\n\n"
    )
    lines = [f"{code:<9}{prefix} {via}" for code, prefix, via in shows.routes(device)]
    return header + "\n".join(lines) + "\n"


PLATFORM = Platform(
    name="cisco_ios",
    rules=RULES,
    grammar=ios_grammar.GRAMMAR,
    invalid=ios_style_invalid,
    config_greeting="Enter configuration commands, one per line.  End with CNTL/Z.\n",
    terminal_replies={},
    shows={
        ("running-config",): shows.show_running,
        ("startup-config",): shows.show_startup,
        ("version",): show_version,
        ("ip", "interface", "brief"): show_ip_interface_brief,
        ("interfaces",): show_interfaces,
        ("ip", "route"): show_ip_route,
        ("ip", "ospf", "neighbor"): shows.show_no_neighbours,
        ("clock",): shows.show_clock,
    },
    save_reply="Building configuration...\n[OK]\n",
    banner_start=banner_start,
    banner_prompt=lambda delimiter: (
        f"Enter TEXT message.  End with the character '{delimiter[0]}'.\n"
    ),
    initial_config=initial_config,
    show_run_header=show_run_header,
    address_style="mask",
)
