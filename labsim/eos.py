"""Arista EOS (vEOS 4.30 look-alike): boot configuration, show output; its modes are
`base.grammar.eos`."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from ipaddress import IPv4Interface

from base.grammar import eos as eos_grammar
from labsim import ios, shows
from labsim.configtree import TreeRules
from labsim.platform import DeviceView, Platform, SimInterface
from labsim.spec import DeviceSpec

_SHORT = {
    "Ethernet": "Et",
    "Loopback": "Lo",
    "Management": "Ma",
    "Vlan": "Vl",
    "Port-Channel": "Po",
}


def _interface_label(line: str) -> str:
    name = line.split(None, 1)[1]
    for full, short in _SHORT.items():
        if name.startswith(full):
            return f"config-if-{short}{name[len(full) :]}"
    return f"config-if-{name}"


def _named(prompt: str, word: int) -> Callable[[str], str]:
    """`vlan 10` -> `config-vlan-10`: the prompt with the opening line's word `word`."""
    return lambda line: f"{prompt}-{line.split()[word]}"


LABELS: dict[str, Callable[[str], str]] = {
    "if": _interface_label,
    "vlan": _named("config-vlan", 1),
    "acl": _named("config-acl", 2),
    "route-map": _named("config-route-map", 1),
    "mgmt": _named("config-mgmt", 1),
}


RULES = TreeRules(
    indent="   ",
    separator="!",
    sections=re.compile(
        r"^(interface|router|vlan \d|ip access-list|route-map|management|banner)\b"
    ),
    single_valued=tuple(
        re.compile(p)
        for p in (
            r"^hostname\b",
            r"^description\b",
            r"^ip address(?!.*secondary$)",
            r"^name\b",
            r"^(bgp )?router-id\b",
            r"^(mtu|speed)\b",
            r"^ip ospf (cost|network|priority)\b",
            r"^switchport (mode|access vlan|trunk native vlan)\b",
            r"^neighbor \S+ (remote-as|description|update-source)\b",
            r"^(ip domain-name|clock timezone|spanning-tree mode|maximum-paths)\b",
            r"^(snmp-server (location|contact)|banner (motd|login))\b",
        )
    ),
    shown_negations=("no switchport", "no ip routing", "no aaa root"),
    order=(
        "service",
        "transceiver",
        "logging",
        "hostname",
        "ip domain-name",
        "ip name-server",
        "ntp",
        "snmp-server",
        "spanning-tree",
        "aaa",
        "username",
        "vlan",
        "interface",
        "ip access-list",
        "ip route",
        "ip routing",
        "route-map",
        "router",
        "banner",
        "management",
    ),
    footer="end",
    hidden_defaults=frozenset({"switchport"}),
)


def banner_start(line: str) -> str | None:
    """EOS reads banner text until a line `EOF`."""
    return "EOF" if re.match(r"^banner (motd|login)$", line) else None


def initial_config(spec: DeviceSpec) -> str:
    lines = [
        "! Command: show running-config",
        "no aaa root",
        "!",
        "transceiver qsfp default-mode 4x10G",
        "!",
        "service routing protocols model multi-agent",
        "!",
        f"hostname {spec.name}",
        "!",
        "spanning-tree mode mstp",
        "!",
    ]
    for vid, name in sorted(spec.vlans.items()):
        lines += [f"vlan {vid}", f"   name {name}", "!"]
    for interface in spec.interfaces:
        lines.append(f"interface {interface.name}")
        if interface.description:
            lines.append(f"   description {interface.description}")
        if interface.address is not None:
            if interface.name.startswith("Ethernet"):
                lines.append("   no switchport")
            shown = "dhcp" if interface.dhcp else interface.address.with_prefixlen
            lines.append(f"   ip address {shown}")
        if not interface.enabled:
            lines.append("   shutdown")
        lines.append("!")
    lines += ["interface Management1", "!", "ip routing", "!", "management api http-commands"]
    lines += ["   no shutdown", "!", "end", ""]
    return "\n".join(lines)


def show_run_header(device: DeviceView, body: str) -> str:
    return "! Command: show running-config\n! device: " + (
        f"{device.hostname} (vEOS-lab, EOS-4.30.0F)\n!\n"
    )


def show_version(device: DeviceView, args: list[str]) -> str:
    return (
        "Arista vEOS-lab\n"
        "Hardware version: \n"
        f"Serial number: SN-{device.name}\n"
        "System MAC address:  5254.0012.3456\n\n"
        "Software image version: 4.30.0F\n"
        "Architecture: x86_64\n"
        "Internal build version: 4.30.0F-31408673.4300F\n\n"
        "Uptime: 1 hour and 0 minutes\n"
        "Total memory: 2006892 kB\n"
        "Free memory: 1104208 kB\n"
    )


def show_ip_interface_json(device: DeviceView, args: list[str]) -> str:
    """`show ip interface | json` in eAPI's shape (Arista's rbeapi, `ipinterfaces.rb`; ANTA's
    VerifyInterfaceIPv4 data): the routed interfaces by name, each with its status and
    `interfaceAddress.primaryIp` {address, maskLen}."""
    shown = {}
    for interface, address in _routed(device):
        status = "connected" if interface.link_up else "notconnect"
        loopback = interface.name.startswith("Loopback")
        shown[interface.name] = {
            "name": interface.name,
            "lineProtocolStatus": "up" if interface.link_up else "down",
            "interfaceStatus": status if interface.enabled else "disabled",
            "enabled": interface.enabled,
            "mtu": 65535 if loopback else 1500,
            "description": interface.description,
            "vrf": "default",
            "urpf": "disable",
            "proxyArp": False,
            "localProxyArp": False,
            "interfaceAddress": {
                "primaryIp": {
                    "address": str(address.ip),
                    "maskLen": address.network.prefixlen,
                },
                "secondaryIps": {},
                "secondaryIpsOrderedList": [],
                "virtualIp": {"address": "0.0.0.0", "maskLen": 0},
                "broadcastAddress": "255.255.255.255",
                "dhcp": interface.leased,
            },
        }
    return json.dumps({"interfaces": shown}, indent=4) + "\n"


def _routed(device: DeviceView) -> list[tuple[SimInterface, IPv4Interface]]:
    """The interfaces `show ip interface` lists (those with an address), with the address."""
    return [(i, i.address) for i in device.interfaces if i.address is not None]


def show_ip_interface_brief(device: DeviceView, args: list[str]) -> str:
    rows = [
        "                                                                          Address",
        "Interface         IP Address           Status       Protocol           MTU    Owner",
        "----------------- -------------------- ------------ -------------- ---------- -------",
    ]
    for interface, address in _routed(device):
        status = "up" if interface.link_up else "down"
        if not interface.enabled:
            status = "admin down"
        protocol = "up" if interface.link_up else "down"
        shown = address.with_prefixlen
        rows.append(f"{interface.name:<18}{shown:<21}{status:<13}{protocol:<15}{1500:>10}")
    return "\n".join(rows) + "\n"


def show_vlan(device: DeviceView, args: list[str]) -> str:
    rows = ["VLAN  Name                             Status    Ports", "-" * 60]
    rows.append(f"{1:<6}{'default':<33}active")
    for line in device.running_config().splitlines():
        if re.match(r"^vlan \d+$", line):
            vid = line.split()[1]
            name = shows.section_of(device.running_config(), line).splitlines()
            named = [n.strip()[5:] for n in name if n.strip().startswith("name ")]
            rows.append(f"{vid:<6}{(named or ['VLAN' + vid.zfill(4)])[0]:<33}active")
    return "\n".join(rows) + "\n"


def show_ip_route(device: DeviceView, args: list[str]) -> str:
    header = "VRF: default\nCodes: C - connected, S - static, O - OSPF, B - BGP\n\n"
    lines = [
        f" {code:<7}{prefix} {via}" for code, prefix, via in shows.routes(device) if code != "L"
    ]
    return header + "\n".join(lines) + "\n"


PLATFORM = Platform(
    name="arista_eos",
    rules=RULES,
    grammar=eos_grammar.GRAMMAR,
    labels=LABELS,
    invalid=lambda column: "% Invalid input\n",
    config_greeting="",
    terminal_replies={"length": "Pagination disabled.\n", "width": "Width set to {} columns.\n"},
    shows={
        ("running-config",): shows.show_running,
        ("startup-config",): shows.show_startup,
        ("version",): show_version,
        ("ip", "interface", "brief"): show_ip_interface_brief,
        ("interfaces",): ios.show_interfaces,
        ("ip", "route"): show_ip_route,
        ("ip", "ospf", "neighbor"): shows.show_no_neighbours,
        ("vlan",): show_vlan,
        ("clock",): shows.show_clock,
    },
    save_reply="Copy completed successfully.\n",
    banner_start=banner_start,
    banner_prompt=lambda delimiter: "Enter TEXT message. Type 'EOF' on its own line to end it.\n",
    initial_config=initial_config,
    show_run_header=show_run_header,
    address_style="prefix",
    json_shows={("ip", "interface"): show_ip_interface_json},
)
