"""The routing sessions the lab runs now, for the `topology` picture: each device's OSPF
neighbours read as its post-checks read them (FRR's JSON, else ntc-templates), placed on the
links whose far end holds the neighbour's address. A link with no neighbour seen stays
unchecked (no OSPF there, or a device that cannot be read); one seen not Full is down."""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping

from workflow.api import LabLayout
from workflow.model import Device
from workflow.ports import LabReader
from workflow.postchecks.parsers import commands, parse
from workflow.postchecks.routing_sessions import UP_STATES, SessionState

Neighbours = Mapping[str, Mapping[str, str]]  # device -> neighbour interface address -> state


async def ospf_sessions(
    reader: LabReader, devices: list[Device], layout: LabLayout
) -> list[SessionState]:
    """The OSPF sessions over the layout's links, as the devices show them now."""
    platforms = {d.name: d.platform for d in devices if d.name in layout.addresses}
    reads = {
        name: found["ospf"] for name, p in platforms.items() if (found := commands(p, ["ospf"]))
    }
    if not reads:
        return []
    response = await reader.read(reads)
    neighbours: dict[str, dict[str, str]] = {}
    for item in response["data"]:
        if item["status"] != "success":
            continue
        try:
            state = parse(platforms[item["name"]], {"ospf": str(item.get("result", ""))})
        except ValueError:  # output it cannot read: the device's links stay unchecked
            continue
        neighbours[item["name"]] = state.ospf_neighbors
    return link_sessions(layout, neighbours)


def link_sessions(layout: LabLayout, neighbours: Neighbours) -> list[SessionState]:
    """Each end's session with the far end of each link, where it sees the far end's address."""
    found = []
    for link in layout.links:
        ends = ((link["a_device"], link["b_device"], link["b_interface"]),
                (link["b_device"], link["a_device"], link["a_interface"]))  # fmt: skip
        for device, peer, peer_interface in ends:
            address = layout.addresses.get(peer, {}).get(peer_interface)
            if address is None or device not in neighbours:
                continue
            ip = str(ipaddress.ip_interface(address).ip)
            state = neighbours[device].get(ip, "")
            if state:
                up = state == UP_STATES["ospf"]
                found.append(SessionState(device, peer, peer_interface, ip, "ospf", state, up))
    return found
