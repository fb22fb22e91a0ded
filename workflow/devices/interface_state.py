"""Interfaces as a device runs them (pure): its operational state per platform, merged with the
interfaces its configuration declares.

An address counts wherever it was configured: in the NOS configuration, with Linux `ip addr`
(FRR's zebra learns it from the kernel), by DHCP. The state is read as the device's own JSON
where it has it (FRR `show interface json`, EOS `show ip interface | json`, Junos `show
interfaces | display json`: ntc-templates' Junos template has no prefix length), else through
ntc-templates (TextFSM): IOS `show interfaces` (`show ip interface brief` has no prefix length),
VRP `display interface`.
A platform with neither is read from its configuration alone, and so is a device whose state
cannot be read or understood.
"""

from __future__ import annotations

import ipaddress
import json
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ntc_templates.parse import parse_output
from textfsm import TextFSMError

from workflow.model import InterfaceFacts, platform_family

STATE_COMMANDS = {
    "frr": "show interface json",
    "cisco_ios": "show interfaces",
    "cisco_xe": "show interfaces",
    "arista_eos": "show ip interface | json",
    "juniper_junos": "show interfaces | display json",
    "huawei": "display interface",
    "huawei_vrp": "display interface",
}
TEXTFSM_PLATFORMS = {"huawei": "huawei_vrp"}  # netmiko family -> ntc-templates platform
# The line a Junos member of a chassis prints after the JSON, above its prompt
JUNOS_CHASSIS_LINE = re.compile(r"\n\{(master|backup|primary|linecard)(:\d+)?\}\s*$")


@dataclass(frozen=True)
class StateRead:
    """What the state read gave: `output`, or the `problem` that kept it from being read."""

    command: str | None  # None: labbot knows no such read for the platform
    output: str | None = None
    problem: str | None = None


def state_command(platform: str) -> str | None:
    """The read that shows `platform`'s interfaces as they run; None: none is known."""
    return STATE_COMMANDS.get(platform_family(platform))


def interfaces_from_state(platform: str, output: str) -> list[InterfaceFacts]:
    """The interfaces `state_command(platform)` showed; ValueError on output it cannot read."""
    family = platform_family(platform)
    if family == "juniper_junos":
        output = JUNOS_CHASSIS_LINE.sub("", output)
    if family in _JSON_READERS:
        try:
            return _JSON_READERS[family](_json_object(output))
        except (AttributeError, TypeError, KeyError, IndexError) as exc:  # not the JSON's shape
            raise ValueError(f"not the shape `{STATE_COMMANDS[family]}` gives ({exc})") from None
    try:
        rows: list[dict[str, Any]] = parse_output(
            platform=TEXTFSM_PLATFORMS.get(family, family),
            command=STATE_COMMANDS[family],
            data=output,
        )
    except TextFSMError as exc:  # a line the template cannot place
        raise ValueError(f"not the shape `{STATE_COMMANDS[family]}` gives ({exc})") from None
    if output.strip() and not rows:
        raise ValueError(f"no interface in {output.strip()[:80]!r}")
    parse_row = _TEXTFSM_ROWS[family]
    return [parse_row(row) for row in rows]


def merged(
    configured: Sequence[InterfaceFacts], running: Sequence[InterfaceFacts]
) -> list[InterfaceFacts]:
    """Every interface of either list, in the configuration's order, then the state's. The
    state says whether an interface is enabled and which address it has; an address only the
    configuration holds still counts (a device may not show one of a link that is down)."""
    live = {interface["name"]: interface for interface in running}
    facts = []
    for interface in configured:
        shown = live.pop(interface["name"], None)
        if shown is None:
            facts.append(interface)
            continue
        address = shown["address"] or interface["address"]
        both = InterfaceFacts(name=shown["name"], address=address, enabled=shown["enabled"])
        vrf = shown.get("vrf") or interface.get("vrf")  # the state's, else the configuration's
        if vrf:
            both["vrf"] = vrf
        facts.append(both)
    return facts + list(live.values())


def _json_object(output: str) -> dict[str, Any]:
    try:
        data = json.loads(output)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON ({exc.msg}): {output.strip()[:80]!r}") from None
    if not isinstance(data, dict):
        raise ValueError(f"expected an object of interfaces, got {output.strip()[:80]!r}")
    return data


def _frr(data: dict[str, Any]) -> list[InterfaceFacts]:
    """`show interface json`: {name: {administrativeStatus, vrfName, ipAddresses: [{address,
    secondary}]}} (FRR 8 and later)."""
    found = []
    for name, shown in data.items():
        facts = InterfaceFacts(
            name=str(name),
            address=_usable(
                str(entry.get("address", ""))
                for entry in shown.get("ipAddresses") or ()
                if not entry.get("secondary")
            ),
            enabled=shown.get("administrativeStatus") == "up",
        )
        vrf = str(shown.get("vrfName") or "default")
        if vrf != "default":  # enslaved to a VRF device in the kernel, whatever FRR's config says
            facts["vrf"] = vrf
        found.append(facts)
    return found


def _ios_row(row: dict[str, Any]) -> InterfaceFacts:
    """cisco_ios_show_interfaces: INTERFACE, LINK_STATUS, IP_ADDRESS, PREFIX_LENGTH."""
    address = row.get("ip_address") or ""
    length = row.get("prefix_length") or ""
    return InterfaceFacts(
        name=str(row["interface"]),
        address=_usable([f"{address}/{length}"] if address and length else []),
        enabled="administratively" not in str(row.get("link_status", "")),
    )


def _eos(data: dict[str, Any]) -> list[InterfaceFacts]:
    """`show ip interface | json` (eAPI's shape): {"interfaces": {name: {interfaceStatus
    (`disabled` when shut down), interfaceAddress: {primaryIp: {address, maskLen}}}}}; an
    interface with no address shows `0.0.0.0/0` or no interfaceAddress."""
    interfaces = data.get("interfaces")
    if not isinstance(interfaces, dict):
        raise ValueError(f'expected {{"interfaces": {{…}}}}, got keys {sorted(data)[:5]}')
    facts = []
    for name, shown in interfaces.items():
        primary = (shown.get("interfaceAddress") or {}).get("primaryIp") or {}
        address = f"{primary.get('address')}/{primary.get('maskLen')}" if primary else ""
        enabled = shown.get("interfaceStatus") != "disabled"
        facts.append(InterfaceFacts(name=str(name), address=_usable([address]), enabled=enabled))
    return facts


def _junos(data: dict[str, Any]) -> list[InterfaceFacts]:
    """`show interfaces | display json` (Junos's JSON of its XML: every element a list of
    objects, text under "data"): interface-information / physical-interface (name,
    admin-status) / logical-interface (name `ge-0/0/0.0`, address-family). A logical interface
    is enabled when its physical interface is."""
    information = data.get("interface-information")
    if not isinstance(information, list):
        raise ValueError(
            f'expected {{"interface-information": [...]}}, got keys {sorted(data)[:5]}'
        )
    facts = []
    for physical in information[0].get("physical-interface", []):
        enabled = _junos_text(physical, "admin-status") == "up"
        for logical in physical.get("logical-interface", []):
            name = _junos_text(logical, "name")
            address = _usable(_junos_addresses(logical))
            facts.append(InterfaceFacts(name=name, address=address, enabled=enabled))
    return facts


def _junos_addresses(logical: dict[str, Any]) -> Iterator[str]:
    """The `inet` family's addresses: ifa-local (10.0.0.1) with the length of ifa-destination
    (its subnet, 10.0.0.0/30); an address without a destination (lo0) is a host address."""
    for family in logical.get("address-family", []):
        if _junos_text(family, "address-family-name") != "inet":
            continue
        for address in family.get("interface-address", []):
            local = _junos_text(address, "ifa-local")
            subnet = _junos_text(address, "ifa-destination") if "ifa-destination" in address else ""
            yield local if "/" in local else f"{local}/{subnet.partition('/')[2] or 32}"


def _junos_text(element: dict[str, Any], key: str) -> str:
    """The text of `element`'s child `key` (`{"name": [{"data": "ge-0/0/0"}]}`)."""
    return str(element[key][0]["data"])


def _vrp_row(row: dict[str, Any]) -> InterfaceFacts:
    """huawei_vrp_display_interface: INTERFACE, LINK_STATUS (`Administratively DOWN` when shut
    down), IP_ADDRESS as A/LEN (configured, allocated by DHCP or negotiated)."""
    return InterfaceFacts(
        name=str(row["interface"]),
        address=_usable([str(row.get("ip_address") or "")]),
        enabled="administratively" not in str(row.get("link_status", "")).lower(),
    )


_JSON_READERS: dict[str, Callable[[dict[str, Any]], list[InterfaceFacts]]] = {
    "frr": _frr,
    "arista_eos": _eos,
    "juniper_junos": _junos,
}
_TEXTFSM_ROWS: dict[str, Callable[[dict[str, Any]], InterfaceFacts]] = {
    "cisco_ios": _ios_row,
    "cisco_xe": _ios_row,
    "huawei": _vrp_row,
    "huawei_vrp": _vrp_row,
}


def _usable(addresses: Iterable[str]) -> str | None:
    """The first IPv4 address a lab addresses devices by: not 127/8 (every Linux `lo` has it),
    not link-local, not unassigned."""
    for text in addresses:
        try:
            address = ipaddress.ip_interface(text)
        except ValueError:
            continue
        ip = address.ip
        if isinstance(address, ipaddress.IPv4Interface) and not (
            ip.is_loopback or ip.is_link_local or ip.is_unspecified
        ):
            return address.with_prefixlen
    return None
