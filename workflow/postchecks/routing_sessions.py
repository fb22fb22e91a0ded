"""Each routing session a device's post-checks looked at — an OSPF neighbour on a link or a BGP
peer — with the state read and whether it is up, typed from the device's outcome (pure).

A met fact is a session in its passing state (OSPF Full, BGP Established); a missing one carries
the state read (`seen`, empty when the neighbour or peer was absent). Routes are not sessions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from workflow.postcheck_outcome import DeviceChecks, Fact

__all__ = ["UP_STATES", "Protocol", "SessionState", "session_states"]

Protocol = Literal["ospf", "bgp"]
SESSION_CHECKS: dict[str, Protocol] = {"ospf_neighbors": "ospf", "bgp_sessions": "bgp"}
UP_STATES: dict[Protocol, str] = {"ospf": "Full", "bgp": "Established"}


@dataclass(frozen=True)
class SessionState:
    """`device`'s session with `peer` (its interface `peer_interface` for OSPF, "" for BGP;
    `peer` "" when the address is no lab device's): `state` as read ("" none), `up` passing."""

    device: str
    peer: str
    peer_interface: str
    address: str  # the neighbour's or peer's address
    protocol: Protocol
    state: str
    up: bool


def session_states(device: str, checks: DeviceChecks) -> list[SessionState]:
    """The sessions `device`'s post-checks covered, met ones first."""
    states = []
    for fact in checks["met"]:
        protocol = SESSION_CHECKS.get(fact["check"])
        if protocol is not None:
            states.append(_session(device, fact, protocol, UP_STATES[protocol], up=True))
    for missing in checks["missing"]:
        protocol = SESSION_CHECKS.get(missing["fact"]["check"])
        if protocol is not None and missing["evidence"] == "state":
            seen = missing["seen"][0] if missing["seen"] else ""
            states.append(_session(device, missing["fact"], protocol, seen, up=False))
    return states


def _session(device: str, fact: Fact, protocol: Protocol, state: str, *, up: bool) -> SessionState:
    return SessionState(device, fact["peer"], fact["interface"], fact["key"], protocol, state, up)
