"""Interfaces as a device runs them (pure): its operational state per platform, merged with the
interfaces its configuration declares.

An address counts wherever it was configured: in the NOS configuration, with Linux `ip addr`
(FRR's zebra learns it from the kernel), by DHCP. The state is read as the device's own JSON
where it has it (FRR `show interface json`, EOS `show ip interface | json`), else through
ntc-templates (TextFSM): IOS `show interfaces` (`show ip interface brief` has no prefix length).
A platform with neither is read from its configuration alone, and so is a device whose state
cannot be read or understood.
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ntc_templates.parse import parse_output

from workflow.model import InterfaceFacts, platform_family

STATE_COMMANDS = {
    "frr": "show interface json",
    "cisco_ios": "show interfaces",
    "cisco_xe": "show interfaces",
    "arista_eos": "show ip interface | json",
}


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
    if family in _JSON_READERS:
        try:
            return _JSON_READERS[family](_json_object(output))
        except (AttributeError, TypeError) as exc:  # JSON, but not in the command's shape
            raise ValueError(f"not the shape `{STATE_COMMANDS[family]}` gives ({exc})") from None
    rows: list[dict[str, Any]] = parse_output(
        platform=family, command=STATE_COMMANDS[family], data=output
    )
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
        facts.append(InterfaceFacts(name=shown["name"], address=address, enabled=shown["enabled"]))
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
    """`show interface json`: {name: {administrativeStatus, ipAddresses: [{address,
    secondary}]}} (FRR 8 and later)."""
    return [
        InterfaceFacts(
            name=str(name),
            address=_usable(
                str(entry.get("address", ""))
                for entry in shown.get("ipAddresses") or ()
                if not entry.get("secondary")
            ),
            enabled=shown.get("administrativeStatus") == "up",
        )
        for name, shown in data.items()
    ]


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


_JSON_READERS: dict[str, Callable[[dict[str, Any]], list[InterfaceFacts]]] = {
    "frr": _frr,
    "arista_eos": _eos,
}
_TEXTFSM_ROWS: dict[str, Callable[[dict[str, Any]], InterfaceFacts]] = {
    "cisco_ios": _ios_row,
    "cisco_xe": _ios_row,
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
