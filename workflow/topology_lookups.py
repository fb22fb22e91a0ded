"""Lookups in the lab's topology, pure functions of the plain data in `workflow/model.py`:
shared by the library planner's derived parameters (`workflow/library/derive.py`) and the
post-checks' expectations (`workflow/postchecks/evaluate.py`)."""

from __future__ import annotations

import ipaddress
import re

from workflow.model import DeviceFacts, Topology

__all__ = ["address_of", "is_loopback", "link_peers", "own_interface"]

_PORT_NUMBER = re.compile(r"^[A-Za-z]*?(\d+)$")  # Ethernet1, e1, eth1: the NIC's number


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


def own_interface(facts: DeviceFacts | None, port: str) -> str:
    """The device's interface for an inventory's name of a link's port: the same name (any
    case), else the Linux NIC of the port's number (`Ethernet1`, `e1` -> `eth1`) when the
    device has one (a GNS3 qemu node's ports are `Ethernet0`.. while FRR names its NICs
    `eth0`..); else the port's name as it is."""
    names = [entry["name"] for entry in facts["interfaces"]] if facts else []
    if port in names:
        return port
    same = [name for name in names if name.casefold() == port.casefold()]
    if same:
        return same[0]
    number = _PORT_NUMBER.search(port)
    if number is not None and f"eth{number[1]}" in names:
        return f"eth{number[1]}"
    return port


def address_of(topology: Topology, device: str, interface: str) -> str | None:
    facts = topology["devices"].get(device)
    interface = own_interface(facts, interface)
    for entry in facts["interfaces"] if facts else ():
        if entry["name"] == interface and entry["address"] and "vrf" not in entry:
            return str(ipaddress.ip_interface(entry["address"]).ip)
    return None
