"""Interface facts (pure): what the planners address devices by, from the running config merged
with the interfaces' state where it was read."""

from __future__ import annotations

import ipaddress
import re

from hier_config import HConfigChild, Platform, get_hconfig

from workflow.devices.diffing import hier_platform, literal_config
from workflow.devices.interface_state import StateRead, interfaces_from_state, merged
from workflow.model import InterfaceFacts, platform_family

# `set interfaces IF [unit N] REST`, the form hier_config gives a Junos configuration in
JUNOS_INTERFACE_LINE = re.compile(r"^set interfaces (\S+) (?:unit (\d+) )?(.*)$")
JUNOS_INSTANCE_LINE = re.compile(
    r"^set routing-instances (?P<instance>\S+) interface (?P<unit>\S+)$"
)


def interfaces_from_config(running: str, platform: str = "") -> list[InterfaceFacts]:
    """Every interface the configuration declares, with its primary IPv4 address and admin
    state.

    Junos (braces or `set` lines) is read through hier_config, by logical unit (`ge-0/0/0.0`,
    the name Junos protocols and its state use); any other platform by indentation, so IOS
    (`ip address A MASK`), EOS (`ip address A/LEN`) and VRP configs read the same way (VRP's
    `#` separator lines dropped by its hier_config driver).
    """
    if platform_family(platform) == "juniper_junos":
        return _junos_interfaces(running)
    if hier_platform(platform) is Platform.HUAWEI_VRP:
        config = get_hconfig(Platform.HUAWEI_VRP, running)
    else:
        config = literal_config(running.splitlines())
    found = []
    for section in config.get_children(startswith="interface "):
        name, _, in_vrf = section.text.removeprefix("interface ").strip().partition(" vrf ")
        facts = InterfaceFacts(
            name=name.strip(),
            address=_primary_address(section),
            enabled=section.get_child(equals="shutdown") is None,
        )
        vrf = in_vrf.strip() or _vrf(section)
        if vrf:
            facts["vrf"] = vrf
        found.append(facts)
    return found


# The line putting an interface in a VRF: IOS `vrf forwarding X` / `ip vrf forwarding X`, EOS
# `vrf X`, VRP `ip binding vpn-instance X` (FRR names it in the header: `interface eth1 vrf X`).
_VRF_LINE = re.compile(r"^(?:ip )?vrf (?:forwarding )?(\S+)$|^ip binding vpn-instance (\S+)$")


def _vrf(section: HConfigChild) -> str | None:
    for child in section.children:
        match = _VRF_LINE.match(child.text.strip())
        if match:
            return match.group(1) or match.group(2)
    return None


def _junos_interfaces(running: str) -> list[InterfaceFacts]:
    """Each `interfaces IF unit N` with its first `family inet address`; a unit is disabled
    when it or its interface says `disable`."""
    disabled: set[str] = set()
    units: dict[str, InterfaceFacts] = {}
    instances: dict[str, str] = {}  # unit -> its routing instance (a VRF)
    for line in get_hconfig(Platform.JUNIPER_JUNOS, running).dump_simple():
        instance = JUNOS_INSTANCE_LINE.match(line)
        if instance is not None:
            instances[instance["unit"]] = instance["instance"]
        match = JUNOS_INTERFACE_LINE.match(line)
        if match is None:
            continue
        interface, unit, rest = match.groups()
        name = interface if unit is None else f"{interface}.{unit}"
        if rest == "disable":
            disabled.add(name)
        if unit is None:
            continue
        facts = units.setdefault(name, InterfaceFacts(name=name, address=None, enabled=True))
        address = rest.removeprefix("family inet address ").split(" ")[0]
        if rest.startswith("family inet address ") and facts["address"] is None:
            facts["address"] = _address(address)
    for name, facts in units.items():
        facts["enabled"] = not {name, name.rpartition(".")[0]} & disabled
        if name in instances:
            facts["vrf"] = instances[name]
    return list(units.values())


def _address(spec: str) -> str | None:
    try:
        return ipaddress.ip_interface(spec).with_prefixlen
    except ValueError:
        return None  # not an address labbot understands; the interface is still listed


def _primary_address(section: HConfigChild) -> str | None:
    for line in section.get_children(startswith="ip address "):
        words = line.text.split()[2:]
        if not words or "secondary" in words or words[0] == "dhcp":
            continue
        address = _address(words[0] if "/" in words[0] else "/".join(words[:2]))
        if address is not None:
            return address
    return None


def device_interfaces(
    platform: str, running: str, state: StateRead | None
) -> tuple[list[InterfaceFacts], str | None]:
    """The device's interfaces: its configuration's merged with its state (interface_state.py);
    when the state was not read or not understood, the configuration's alone and why."""
    configured = interfaces_from_config(running, platform)
    if state is None:
        return configured, "its state was not read"
    if state.output is None:
        problem = state.problem or "no answer"
        named = state.command is None or f"`{state.command}`" in problem
        return configured, problem if named else f"`{state.command}`: {problem}"
    try:
        return merged(configured, interfaces_from_state(platform, state.output)), None
    except ValueError as exc:
        return configured, f"`{state.command}` gave what labbot cannot read: {exc}"


def management_interface(host: str, interfaces: list[InterfaceFacts]) -> str | None:
    """The interface whose address is `host` (the device's address in the inventory): the one
    labbot reaches the device through, whatever its name; None when `host` is none of them (a
    console server, a name, a NAT)."""
    try:
        reached = ipaddress.ip_address(host)
    except ValueError:
        return None
    for interface in interfaces:
        address = interface["address"]
        if address is not None and ipaddress.ip_interface(address).ip == reached:
            return interface["name"]
    return None
