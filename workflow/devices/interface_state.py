"""Interfaces as a device runs them (pure): its operational state per platform, merged with the
interfaces its configuration declares.

An address counts wherever it was configured: in the NOS configuration, with Linux `ip addr`
(FRR's zebra learns it from the kernel), by DHCP. The state is read with FRR's own JSON, else
through ntc-templates (TextFSM): IOS `show interfaces` (`show ip interface brief` has no prefix
length), EOS `show ip interface brief` (its addresses carry one). A platform with neither is
read from its configuration alone, and so is a device whose state cannot be read or understood.
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
    "arista_eos": "show ip interface brief",
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
    if family == "frr":
        return _frr(output)
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


def _frr(output: str) -> list[InterfaceFacts]:
    """`show interface json`: {name: {administrativeStatus, ipAddresses: [{address,
    secondary}]}} (FRR 8 and later)."""
    try:
        data = json.loads(output)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON ({exc.msg}): {output.strip()[:80]!r}") from None
    if not isinstance(data, dict):
        raise ValueError(f"expected an object of interfaces, got {output.strip()[:80]!r}")
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


def _eos_row(row: dict[str, Any]) -> InterfaceFacts:
    """arista_eos_show_ip_interface_brief: INTERFACE, IP_ADDRESS (`A/LEN`), STATUS."""
    return InterfaceFacts(
        name=str(row["interface"]),
        address=_usable([str(row.get("ip_address") or "")]),
        enabled=str(row.get("status", "")).lower() != "admin",
    )


_TEXTFSM_ROWS: dict[str, Callable[[dict[str, Any]], InterfaceFacts]] = {
    "cisco_ios": _ios_row,
    "cisco_xe": _ios_row,
    "arista_eos": _eos_row,
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
