"""Interface facts read from a running config (pure): what the planners address devices by."""

from __future__ import annotations

import ipaddress

from hier_config import HConfigChild

from workflow.devices.diffing import literal_config
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
