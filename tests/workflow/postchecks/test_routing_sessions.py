"""The sessions a device's post-checks looked at, typed from its outcome: a met OSPF neighbour
is Full and a met BGP peer Established; a missing one keeps the state read (none: absent);
routes are no sessions."""

from __future__ import annotations

from workflow.postcheck_outcome import DeviceChecks, Fact, Missing
from workflow.postchecks.routing_sessions import SessionState, session_states


def fact(check: str, key: str, peer: str = "", interface: str = "") -> Fact:
    return Fact(check=check, key=key, peer=peer, interface=interface, protocol="")  # type: ignore[typeddict-item]


def test_met_and_missing_sessions_carry_their_state() -> None:
    checks = DeviceChecks(
        kind="failed",
        seconds=8.0,
        met=[fact("ospf_neighbors", "10.0.12.1", "R1", "eth0"), fact("routes", "10.9.0.0/16")],
        missing=[
            Missing(
                fact=fact("ospf_neighbors", "10.0.23.2", "R3", "eth0"),
                evidence="state",
                seen=["Init"],
            ),
            Missing(fact=fact("bgp_sessions", "10.0.24.2", "R4"), evidence="state", seen=[]),
            Missing(
                fact=fact("loopback_routes", "10.255.0.3/32", "R3", "lo"),
                evidence="not_in_table",
                seen=[],
            ),
        ],
        platform="",
    )
    assert session_states("R2", checks) == [
        SessionState("R2", "R1", "eth0", "10.0.12.1", "ospf", "Full", up=True),
        SessionState("R2", "R3", "eth0", "10.0.23.2", "ospf", "Init", up=False),
        SessionState("R2", "R4", "", "10.0.24.2", "bgp", "", up=False),
    ]


def test_a_device_not_checked_has_no_session() -> None:
    checks = DeviceChecks(kind="simulated", seconds=0.0, met=[], missing=[], platform="labsim")
    assert session_states("R1", checks) == []
