"""What one device's post-checks showed, as typed values the bot words (bot/views/postcheck.py).

JSON-shaped (the checkpointer stores them as they are): a `Fact` is one thing a device must
show, a `Missing` one it does not show yet with the evidence read, and `DeviceChecks` the
device's outcome (passed, failed at the deadline, still waiting, or not checkable).
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict, get_args

__all__ = ["CheckKind", "DeviceChecks", "Evidence", "Fact", "Missing", "OutcomeKind"]

CheckKind = Literal["ospf_neighbors", "loopback_routes", "bgp_sessions", "bgp_prefixes", "routes"]
CHECK_KINDS: tuple[CheckKind, ...] = get_args(CheckKind)

# Why a fact is not shown: the neighbour/peer's `state` (none read: absent), the route known by
# `seen` protocols but not installed, not in the routing table, or held by `seen`, not the one
# required.
Evidence = Literal["state", "not_installed", "not_in_table", "held_by_other"]
EVIDENCE: tuple[Evidence, ...] = get_args(Evidence)

# passed/failed: polled until all held or the deadline; waiting: still polling (progress);
# no_parser: no parser for the device's `platform`; simulated: a simulator (`platform`) runs no
# routing, so nothing was checked.
OutcomeKind = Literal["passed", "failed", "waiting", "no_parser", "simulated"]
OUTCOME_KINDS: tuple[OutcomeKind, ...] = get_args(OutcomeKind)


class Fact(TypedDict):
    check: CheckKind
    key: str  # the neighbour/peer address or the prefix
    peer: str  # the target it comes from ("" when not a lab device)
    interface: str  # the peer's interface ("" when none)
    protocol: str  # the protocol that must hold a route ("" any)


class Missing(TypedDict):
    fact: Fact
    evidence: Evidence
    seen: list[str]  # state: the state read ([] absent); otherwise the protocols that know it


class DeviceChecks(TypedDict):
    kind: OutcomeKind
    seconds: float  # since the first read
    met: list[Fact]
    missing: list[Missing]
    platform: str  # no_parser: the device's platform; simulated: its simulator
    within: NotRequired[float]  # waiting: the seconds the checks may take in all
