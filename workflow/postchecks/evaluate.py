"""What each target must show after the push (from the checks, its parameters and the lab), and
whether it does: pure functions, so the engine only reads and waits.

- ospf_neighbors: on each link to another target, the neighbour's interface address is Full.
- loopback_routes: every loopback network of every other target is in the routing table.
- bgp_sessions: every peer address in the device's `param` (default `neighbors`) Established.
- bgp_prefixes: the `param` (default `networks`) of every peer target received by BGP.
- routes: every prefix in the device's own `param` installed (by `protocol` when given).
Loopbacks and addresses come from the lab's facts read before the push.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from workflow.model import Topology
from workflow.postcheck_outcome import CheckKind, Fact, Missing
from workflow.postcheck_spec import PostCheck
from workflow.postchecks.parsers import RoutingState, Topic
from workflow.topology_lookups import address_of, is_loopback, link_peers

__all__ = ["Expectation", "expectations", "unmet"]

PASSED_STATES = {"ospf": "Full", "bgp": "Established"}


@dataclass(frozen=True)
class Expectation:
    """One fact a device must show: `key` is a neighbour/peer address or a prefix; `peer` and
    `interface` say where it comes from (bot/views/postcheck.py words it)."""

    kind: CheckKind
    topic: Topic
    key: str
    peer: str = ""
    interface: str = ""
    protocol: str | None = None  # routes: the protocol that must hold it

    def fact(self) -> Fact:
        return Fact(
            check=self.kind,
            key=self.key,
            peer=self.peer,
            interface=self.interface,
            protocol=self.protocol or "",
        )


def expectations(
    checks: Sequence[PostCheck],
    device: str,
    params: Mapping[str, Mapping[str, Any]],
    topology: Topology,
) -> list[Expectation]:
    """Everything `device` must show; `params` holds every target's parameters."""
    found: list[Expectation] = []
    for check in checks:
        for expected in _BUILDERS[check["kind"]](check, device, params, topology):
            if expected not in found:
                found.append(expected)
    return found


def unmet(expected: Expectation, state: RoutingState) -> Missing | None:
    """Why `state` does not show `expected` (the evidence), or None when it does."""
    fact = expected.fact()
    if expected.topic == "routes":
        holders = state.routes.get(expected.key)
        if not holders and expected.key in state.unused:
            return Missing(
                fact=fact, evidence="not_installed", seen=sorted(state.unused[fact["key"]])
            )
        if not holders:
            return Missing(fact=fact, evidence="not_in_table", seen=[])
        if expected.protocol and expected.protocol not in holders:
            return Missing(fact=fact, evidence="held_by_other", seen=sorted(holders))
        return None
    table = state.ospf_neighbors if expected.topic == "ospf" else state.bgp_peers
    status = table.get(expected.key)
    if status == PASSED_STATES[expected.topic]:
        return None
    return Missing(fact=fact, evidence="state", seen=[status] if status else [])


def _ospf_neighbors(
    check: PostCheck, device: str, params: Mapping[str, Any], topology: Topology
) -> list[Expectation]:
    found = []
    for peer, interface in link_peers(device, topology):
        address = address_of(topology, peer, interface)
        if peer in params and address:
            found.append(Expectation("ospf_neighbors", "ospf", address, peer, interface))
    return found


def _loopback_routes(
    check: PostCheck, device: str, params: Mapping[str, Any], topology: Topology
) -> list[Expectation]:
    found = []
    for other in sorted(params):
        facts = topology["devices"].get(other)
        if other == device or facts is None:
            continue
        for interface in facts["interfaces"]:
            if interface["address"] and is_loopback(interface["name"]):
                prefix = str(ipaddress.ip_interface(interface["address"]).network)
                found.append(
                    Expectation(
                        "loopback_routes",
                        "routes",
                        prefix,
                        other,
                        interface["name"],
                        check.get("protocol"),
                    )
                )
    return found


def _bgp_sessions(
    check: PostCheck, device: str, params: Mapping[str, Any], topology: Topology
) -> list[Expectation]:
    found = []
    for address in _values(params.get(device, {}).get(check.get("param", "")), "address"):
        owner = _owner(topology, address) or ""
        found.append(Expectation("bgp_sessions", "bgp", address, owner))
    return found


def _bgp_prefixes(
    check: PostCheck, device: str, params: Mapping[str, Any], topology: Topology
) -> list[Expectation]:
    found = []
    for address in _values(params.get(device, {}).get("neighbors"), "address"):
        peer = _owner(topology, address)
        if peer is None or peer not in params:
            continue
        for prefix in _values(params[peer].get(check.get("param", "")), "prefix"):
            network = _network(prefix)
            found.append(Expectation("bgp_prefixes", "routes", network, peer, protocol="bgp"))
    return found


def _routes(
    check: PostCheck, device: str, params: Mapping[str, Any], topology: Topology
) -> list[Expectation]:
    return [
        Expectation("routes", "routes", _network(p), protocol=check.get("protocol"))
        for p in _values(params.get(device, {}).get(check.get("param", "")), "prefix")
    ]


_BUILDERS = {
    "ospf_neighbors": _ospf_neighbors,
    "loopback_routes": _loopback_routes,
    "bgp_sessions": _bgp_sessions,
    "bgp_prefixes": _bgp_prefixes,
    "routes": _routes,
}


def _values(value: Any, key: str) -> list[str]:
    """A parameter's value(s) as text: a scalar, a list, or a list of objects (their `key`)."""
    items = value if isinstance(value, list) else [] if value is None else [value]
    return [str(item.get(key)) if isinstance(item, Mapping) else str(item) for item in items]


def _network(prefix: str) -> str:
    return str(ipaddress.ip_network(prefix, strict=False))


def _owner(topology: Topology, address: str) -> str | None:
    """The lab device with interface address `address`, if any."""
    for name, facts in topology["devices"].items():
        for entry in facts["interfaces"]:
            if entry["address"] and str(ipaddress.ip_interface(entry["address"]).ip) == address:
                return name
    return None
