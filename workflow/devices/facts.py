"""Interface facts (pure): what the planners address devices by, from the running config merged
with the interfaces' state where it was read."""

from __future__ import annotations

import ipaddress

from hier_config import HConfigChild

from workflow.devices.diffing import literal_config
from workflow.devices.interface_state import StateRead, interfaces_from_state, merged
from workflow.model import InterfaceFacts


def interfaces_from_config(running: str) -> list[InterfaceFacts]:
    """Every `interface X` section with its primary IPv4 address and admin state.

    Parsed by indentation only, so IOS (`ip address A MASK`) and EOS (`ip address A/LEN`)
    configs read the same way.
    """
    config = literal_config(running.splitlines())
    return [
        InterfaceFacts(
            name=section.text.removeprefix("interface ").strip(),
            address=_primary_address(section),
            enabled=section.get_child(equals="shutdown") is None,
        )
        for section in config.get_children(startswith="interface ")
    ]


def _primary_address(section: HConfigChild) -> str | None:
    for line in section.get_children(startswith="ip address "):
        words = line.text.split()[2:]
        if not words or "secondary" in words or words[0] == "dhcp":
            continue
        spec = words[0] if "/" in words[0] else "/".join(words[:2])
        try:
            return ipaddress.ip_interface(spec).with_prefixlen
        except ValueError:
            continue  # not an address labbot understands; the interface is still listed
    return None


def device_interfaces(
    platform: str, running: str, state: StateRead | None
) -> tuple[list[InterfaceFacts], str | None]:
    """The device's interfaces: its configuration's merged with its state (interface_state.py);
    when the state was not read or not understood, the configuration's alone and why."""
    configured = interfaces_from_config(running)
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
