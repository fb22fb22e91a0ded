"""What the lab's picture shows, from a push's result: each device's colour by its outcome,
each link's state by the sessions its post-checks read over it, its subnet from both ends'
addresses and interface names as engineers write them."""

from __future__ import annotations

import pytest

from bot.topology.scene import link_state, link_subnet, result_roles, scene_of, short_interface
from workflow.api import LabLayout
from workflow.model import Device, Link, ResponseItem, StandardResponse
from workflow.postcheck_outcome import DeviceChecks, Fact, Missing, OutcomeKind
from workflow.postchecks.routing_sessions import SessionState
from workflow.results.responses import build_response
from workflow.results.targets import infer_kind

R1_R2: Link = {"a_device": "R1", "a_interface": "eth0", "b_device": "R2", "b_interface": "eth0"}
R2_R3: Link = {"a_device": "R2", "a_interface": "eth1", "b_device": "R3", "b_interface": "eth0"}


def ospf(peer: str, interface: str, key: str) -> Fact:
    return Fact(check="ospf_neighbors", key=key, peer=peer, interface=interface, protocol="")


def checks(kind: OutcomeKind, met: list[Fact], missing: list[Missing]) -> DeviceChecks:
    return DeviceChecks(kind=kind, seconds=3.0, met=met, missing=missing, platform="frr")


def item(name: str, status: str = "success", outcome: DeviceChecks | None = None) -> ResponseItem:
    found = ResponseItem(id=name, name=name, status=status)  # type: ignore[typeddict-item]
    if outcome is not None:
        found["checks"] = outcome
    return found


def failed_push() -> StandardResponse:
    """R1 Full with R2; R2 Full with R1 but R3 absent on eth1's link; R3 not reached; R4 not
    checked (a simulator)."""
    down = Missing(fact=ospf("R3", "eth0", "10.0.32.2"), evidence="state", seen=[])
    return build_response([
        item("R1", outcome=checks("passed", [ospf("R2", "eth0", "10.0.12.2")], [])),
        item("R2", "failed", checks("failed", [ospf("R1", "eth0", "10.0.12.1")], [down])),
        item("R3", "failed"),
        item("R4", outcome=checks("simulated", [], [])),
    ])  # fmt: skip


def test_devices_by_result_and_links_by_their_sessions() -> None:
    push = failed_push()
    assert result_roles(push) == {
        "R1": "passed",
        "R2": "postcheck_failed",
        "R3": "failed",
        "R4": "pushed",
    }
    lab = LabLayout(("R1", "R2", "R3"), (R1_R2, R2_R3), {"R1": "router", "R3": "host"}, {})
    scene = scene_of(lab, result=push)
    assert [(link.a, link.b, link.state) for link in scene.links] == [
        ("R1", "R2", "up"),
        ("R2", "R3", "down"),
    ]
    assert scene.shapes == {"R1": "router", "R2": "other", "R3": "host"}
    assert scene_of(lab, {"R1": "target"}).links[0].state == "unchecked"  # at the params gate


def test_bgp_colours_the_links_to_its_peer() -> None:
    up = SessionState("R1", "R2", "", "10.0.12.2", "bgp", "Established", up=True)
    down = SessionState("R2", "R3", "", "10.0.23.2", "bgp", "Active", up=False)
    assert link_state(R1_R2, [up, down]) == "up"
    assert link_state(R2_R3, [up, down]) == "down"
    assert link_state(R2_R3, [up]) == "unchecked"


@pytest.mark.parametrize(
    ("addresses", "subnet"),
    [
        ({"R1": {"eth0": "10.0.12.1/30"}, "R2": {"eth0": "10.0.12.2/30"}}, "10.0.12.0/30"),
        ({"R2": {"eth0": "10.0.12.2/30"}}, "10.0.12.0/30"),  # one end read
        ({"R1": {"eth0": "10.0.12.1/30"}, "R2": {"eth0": "10.0.21.2/30"}},
         "10.0.12.0/30 != 10.0.21.0/30"),
        ({}, ""),
    ],
)  # fmt: skip
def test_a_links_subnet_from_its_ends(addresses: dict[str, dict[str, str]], subnet: str) -> None:
    assert link_subnet(R1_R2, addresses) == subnet


@pytest.mark.parametrize(
    ("name", "short"),
    [("GigabitEthernet0/1", "Gi0/1"), ("Ethernet1", "Et1"), ("eth0", "eth0"), ("swp12", "swp12")],
)
def test_interface_names_as_engineers_write_them(name: str, short: str) -> None:
    assert short_interface(name) == short


def test_a_host_the_inventory_declares_is_drawn_as_one() -> None:
    kind, source, _ = infer_kind(declared="host")
    assert (kind, source) == ("host", "inventory")
    devices = [
        Device("PC1", "linux", "10.0.0.9", 22, kind=kind, kind_source=source),
        Device("R1", "frr", "10.0.0.1", 22),  # no kind given: its family's (a router)
        Device("SW1", "arista_eos", "10.0.0.2", 22),
    ]
    scene = scene_of(LabLayout.of(devices, []))
    assert scene.shapes == {"PC1": "host", "R1": "router", "SW1": "switch"}
