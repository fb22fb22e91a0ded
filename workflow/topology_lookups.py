"""Lookups in the lab's topology, pure functions of the plain data in `workflow/model.py`:
shared by the library planner's derived parameters (`workflow/library/derive.py`) and the
post-checks' expectations (`workflow/postchecks/evaluate.py`)."""

from __future__ import annotations

import ipaddress

from workflow.model import Topology


def is_loopback(name: str) -> bool:
    return name.casefold().startswith(("loopback", "lo"))


def link_peers(me: str, topology: Topology) -> list[tuple[str, str]]:
    """(peer device, peer interface) for every link of device `me`."""
    peers = []
    for link in topology["links"]:
        if link["a_device"] == me:
            peers.append((link["b_device"], link["b_interface"]))
        elif link["b_device"] == me:
            peers.append((link["a_device"], link["a_interface"]))
    return peers


def address_of(topology: Topology, device: str, interface: str) -> str | None:
    facts = topology["devices"].get(device)
    for entry in facts["interfaces"] if facts else ():
        if entry["name"] == interface and entry["address"] and "vrf" not in entry:
            return str(ipaddress.ip_interface(entry["address"]).ip)
    return None
