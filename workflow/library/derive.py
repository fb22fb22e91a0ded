"""Per-device parameters derived from the lab's facts, so "configure OSPF on all routers" needs no
typing: networks from interface addresses, router-ids from loopbacks, BGP peers from links,
descriptions from links, hostnames from node names. Explicit key=value overrides win; a deriver
sees them too (BGP uses an explicit `asn` for every router, i.e. iBGP).

Each deriver: (device facts, topology, overrides) -> params for that device.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Mapping
from typing import Any

from workflow.model import DeviceFacts, Topology, link_ends
from workflow.topology_lookups import address_of, is_loopback, link_peers

__all__ = ["DERIVERS"]

Deriver = Callable[[DeviceFacts, Topology, Mapping[str, Any]], dict[str, Any]]


def device_number(name: str, topology: Topology) -> int:
    """The number in a device's name (R3 -> 3); else its position among the lab's devices."""
    digits = re.findall(r"\d+", name)
    if digits:
        return int(digits[-1])
    return sorted(topology["devices"]).index(name) + 1 if name in topology["devices"] else 1


def _ipv4_interfaces(facts: DeviceFacts) -> list[tuple[str, ipaddress.IPv4Interface]]:
    """The addressed, enabled IPv4 interfaces of the global table: one in a VRF routes apart
    (a template for the global table must not name it)."""
    found = []
    for interface in facts["interfaces"]:
        if interface["address"] and interface["enabled"] and "vrf" not in interface:
            address = ipaddress.ip_interface(interface["address"])
            if isinstance(address, ipaddress.IPv4Interface):
                found.append((interface["name"], address))
    return found


def router_id(facts: DeviceFacts) -> str | None:
    """The first loopback's IPv4 address, the usual router-id."""
    loopbacks = [str(a.ip) for name, a in _ipv4_interfaces(facts) if is_loopback(name)]
    return loopbacks[0] if loopbacks else None


def _with_router_id(params: dict[str, Any], facts: DeviceFacts) -> dict[str, Any]:
    rid = router_id(facts)
    if rid:
        params["router_id"] = rid
    return params


def routing(facts: DeviceFacts, topology: Topology, overrides: Mapping[str, Any]) -> dict[str, Any]:
    """IGPs (OSPF, EIGRP): every addressed IPv4 interface's network, and the interface names."""
    addressed = _ipv4_interfaces(facts)
    networks = list(dict.fromkeys(str(address.network) for _, address in addressed))
    params = {"networks": networks, "interfaces": [name for name, _ in addressed]}
    return _with_router_id(params, facts)


def bgp(facts: DeviceFacts, topology: Topology, overrides: Mapping[str, Any]) -> dict[str, Any]:
    """eBGP with AS 65000+n per router over every addressed link, or iBGP with an explicit asn."""

    def asn_of(device: str) -> Any:
        return overrides.get("asn", 65000 + device_number(device, topology))

    neighbors = []
    for peer, peer_interface in link_peers(facts["name"], topology):
        address = address_of(topology, peer, peer_interface)
        if address:
            neighbors.append({"address": address, "remote_as": asn_of(peer)})
    loopbacks = [str(a.network) for name, a in _ipv4_interfaces(facts) if is_loopback(name)]
    params = {"asn": asn_of(facts["name"]), "neighbors": neighbors, "networks": loopbacks}
    return _with_router_id(params, facts)


def loopback(
    facts: DeviceFacts, topology: Topology, overrides: Mapping[str, Any]
) -> dict[str, Any]:
    number = device_number(facts["name"], topology)
    return {"address": f"10.255.255.{number % 256}/32"}


def descriptions(
    facts: DeviceFacts, topology: Topology, overrides: Mapping[str, Any]
) -> dict[str, Any]:
    me = facts["name"]
    entries = []
    for link in topology["links"]:
        a_end, b_end = link_ends(link)
        for (device, interface), (peer, peer_interface) in ((a_end, b_end), (b_end, a_end)):
            if device == me:
                text = f"to {peer} {peer_interface}"
                entries.append({"interface": interface, "description": text})
    return {"descriptions": entries}


def hostname(
    facts: DeviceFacts, topology: Topology, overrides: Mapping[str, Any]
) -> dict[str, Any]:
    return {"hostname": facts["name"]}


def nothing(facts: DeviceFacts, topology: Topology, overrides: Mapping[str, Any]) -> dict[str, Any]:
    """Templates whose values only the requester knows (NTP servers, VLAN ids, ...)."""
    return {}


DERIVERS: dict[str, Deriver] = {
    "routing": routing,
    "bgp": bgp,
    "loopback": loopback,
    "descriptions": descriptions,
    "hostname": hostname,
    "none": nothing,
}


def derive_params(
    derive: str, facts: DeviceFacts, topology: Topology, overrides: Mapping[str, Any]
) -> dict[str, Any]:
    """The params of `derive`: one deriver's name, or several joined by `+` for templates
    combined in order (`routing+none`); an earlier part's value wins a shared name."""
    params: dict[str, Any] = {}
    for name in derive.split("+"):
        for key, value in DERIVERS[name](facts, topology, overrides).items():
            params.setdefault(key, value)
    return params
