"""Device output to routing state, per platform: FRR's own JSON, else ntc-templates (TextFSM).

Three topics are read: OSPF neighbours (by the neighbour's interface address), the routing table
(prefix -> protocols holding its selected route) and BGP sessions (peer address -> state). A
platform with neither JSON nor a TextFSM template for a topic cannot be post-checked; it is said
so, never guessed from free text.
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ntc_templates.parse import parse_output

from workflow.model import platform_family

__all__ = ["COMMANDS", "RoutingState", "Topic", "commands", "parse"]

Topic = Literal["ospf", "routes", "bgp"]


@dataclass
class RoutingState:
    """What a device shows, in words the checks compare."""

    ospf_neighbors: dict[str, str] = field(default_factory=dict)  # iface address -> "Full", ...
    routes: dict[str, set[str]] = field(default_factory=dict)  # prefix -> protocols selected
    unused: dict[str, set[str]] = field(default_factory=dict)  # prefix -> protocols not selected
    bgp_peers: dict[str, str] = field(default_factory=dict)  # peer address -> "Established", ...


COMMANDS: dict[str, dict[Topic, str]] = {
    "frr": {
        "ospf": "show ip ospf neighbor json",
        "routes": "show ip route json",
        "bgp": "show bgp summary json",
    },
    "cisco_ios": {
        "ospf": "show ip ospf neighbor",
        "routes": "show ip route",
        "bgp": "show ip bgp summary",
    },
    "arista_eos": {
        "ospf": "show ip ospf neighbor",
        "routes": "show ip route",
        "bgp": "show ip bgp summary",
    },
}
COMMANDS["cisco_xe"] = COMMANDS["cisco_ios"]

# IOS / EOS route codes -> protocol names as FRR spells them
ROUTE_CODES = {
    "C": "connected",
    "L": "local",
    "S": "static",
    "O": "ospf",
    "B": "bgp",
    "K": "kernel",
}


def commands(platform: str, topics: Collection[Topic]) -> dict[Topic, str] | None:
    """The command reading each topic on `platform`, or None when it cannot be post-checked."""
    known = COMMANDS.get(platform_family(platform))
    if known is None:
        return None
    return {topic: known[topic] for topic in sorted(topics)}


def parse(platform: str, outputs: Mapping[Topic, str]) -> RoutingState:
    """The state read from each topic's output; raises ValueError on output it cannot read."""
    family = platform_family(platform)
    state = RoutingState()
    for topic, output in outputs.items():
        if family == "frr":
            FRR_PARSERS[topic](state, _json(output))
        else:
            TEXTFSM_PARSERS[topic](state, _rows(family, COMMANDS[family][topic], output))
    return state


def _json(output: str) -> Any:
    try:
        return json.loads(output) if output.strip() else {}
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON ({exc.msg}): {output.strip()[:80]!r}") from None


def _rows(family: str, command: str, output: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = parse_output(platform=family, command=command, data=output)
    return rows


def _frr_ospf(state: RoutingState, data: Any) -> None:
    for entries in (data.get("neighbors") or {}).values():
        for entry in entries:
            status = str(entry.get("nbrState") or entry.get("state") or "")
            state.ospf_neighbors[str(entry.get("ifaceAddress"))] = status.split("/")[0]


def _frr_routes(state: RoutingState, data: Any) -> None:
    for prefix, entries in data.items():
        for entry in entries:
            table = state.routes if entry.get("selected") else state.unused
            table.setdefault(_prefix(prefix), set()).add(str(entry.get("protocol")))


def _frr_bgp(state: RoutingState, data: Any) -> None:
    peers = (data.get("ipv4Unicast") or {}).get("peers") or {}
    for address, peer in peers.items():
        state.bgp_peers[address] = str(peer.get("state", ""))


def _ios_ospf(state: RoutingState, rows: list[dict[str, Any]]) -> None:
    for row in rows:
        address = row.get("ip_address") or row.get("address") or ""
        state.ospf_neighbors[address] = _title(str(row.get("state", "")).split("/")[0])


def _ios_routes(state: RoutingState, rows: list[dict[str, Any]]) -> None:
    for row in rows:
        code = str(row.get("protocol", "")).split()[0] if row.get("protocol") else ""
        prefix = _prefix(f"{row['network']}/{row.get('prefix_length') or 32}")
        state.routes.setdefault(prefix, set()).add(ROUTE_CODES.get(code[:1], code.lower()))


def _ios_bgp(state: RoutingState, rows: list[dict[str, Any]]) -> None:
    for row in rows:
        address = row.get("bgp_neighbor") or row.get("bgp_neigh") or ""
        received = str(row.get("state_or_prefixes_received") or row.get("state_pfxrcd") or "")
        status = str(row.get("state") or "")
        state.bgp_peers[address] = "Established" if received.isdigit() else status or received


def _title(word: str) -> str:
    """`FULL` (IOS) -> `Full` (FRR's spelling)."""
    return word[:1].upper() + word[1:].lower()


def _prefix(text: str) -> str:
    return str(ipaddress.ip_network(text, strict=False))


FRR_PARSERS: dict[Topic, Callable[[RoutingState, Any], None]] = {
    "ospf": _frr_ospf,
    "routes": _frr_routes,
    "bgp": _frr_bgp,
}
TEXTFSM_PARSERS: dict[Topic, Callable[[RoutingState, list[dict[str, Any]]], None]] = {
    "ospf": _ios_ospf,
    "routes": _ios_routes,
    "bgp": _ios_bgp,
}
