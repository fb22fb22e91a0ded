"""Whether a lab can have a twin (pure), and that the twin's answer is part of what the params
gate's hash covers: Execute approves the answer shown with the lines."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from base.errors import LabbotError
from workflow.hashing import content_sha256
from workflow.model import DeviceFacts, InterfaceFacts, Link, ResponseItem, TemplateProposal
from workflow.nodes.gates import params_review
from workflow.phases.lab_twin import (
    DISAGREES,
    LabTwinAnswer,
    no_twin,
    twin_interfaces,
    twin_links,
    twin_refusal,
    wants_twin,
    with_disagreements,
)
from workflow.phases.lab_twin_causes import (
    BGP_NEIGHBORS,
    BGP_TABLE,
    OSPF_INTERFACES,
    session_causes,
)
from workflow.postcheck_outcome import CheckKind, DeviceChecks, Fact, Missing, OutcomeKind
from workflow.results.responses import build_response


def facts(name: str, platform: str = "frr_telnet", **extra: str) -> DeviceFacts:
    found = DeviceFacts(
        name=name, platform=platform, family="", interfaces=[], running_config=f"hostname {name}"
    )
    if "error" in extra:
        found["error"] = extra["error"]
    return found


@pytest.mark.parametrize(
    ("devices", "limit", "refusal"),
    [
        ([facts("R1"), facts("R2")], 2, None),
        ([facts("R1"), facts("R2"), facts("R3")], 2, ("too_large", "2")),
        ([facts("R1"), facts("S1", "cisco_ios")], 5, ("not_frr", "S1 (cisco_ios)")),
        ([facts("R1"), facts("R2", error="timed out")], 5, ("unreadable", "R2")),
    ],
)
def test_twin_refusal(
    devices: list[DeviceFacts], limit: int, refusal: tuple[str, str] | None
) -> None:
    assert twin_refusal({d["name"]: d for d in devices}, limit) == refusal


def test_a_twin_is_meant_for_changes_with_an_frr_target() -> None:
    lab = {"R1": facts("R1", "frr"), "S1": facts("S1", "cisco_ios")}
    assert wants_twin(lab, ["S1", "R1"]) and not wants_twin(lab, ["S1"])


def test_the_params_gate_hash_covers_the_twins_answer() -> None:
    template = TemplateProposal(name="ospf", description="", targets=[], templates={})  # type: ignore[typeddict-item]
    passed = LabTwinAnswer(kind="passed", routers=3, seconds=2.8, checks={}, refused={})
    shown = [
        content_sha256(params_review(template, {}, "t", lab_twin=answer))
        for answer in (None, passed, no_twin("busy", "", 3))
    ]
    assert len(set(shown)) == 3


def test_devices_whose_post_checks_disagree_with_their_twin_are_named() -> None:
    def checks(kind: OutcomeKind) -> DeviceChecks:
        return DeviceChecks(kind=kind, seconds=1.0, met=[], missing=[], platform="frr")

    twin = LabTwinAnswer(
        kind="failed",
        routers=3,
        seconds=3.0,
        checks={"R1": checks("passed"), "R2": checks("failed"), "R3": checks("passed")},
        refused={},
    )
    after = build_response(
        [
            ResponseItem(id="R1", name="R1", status="failed", checks=checks("failed")),
            ResponseItem(id="R2", name="R2", status="success", checks=checks("passed")),
            ResponseItem(id="R3", name="R3", status="success", checks=checks("passed")),
        ]
    )
    said = with_disagreements(after, twin)["metadata"][DISAGREES]
    assert said == {"R1": "twin_passed", "R2": "twin_failed"}
    assert with_disagreements(after, None) == after


def ospf_interface(
    area: str, hello_ms: int = 1000, address: str = "10.0.23.1"
) -> dict[str, object]:
    return {
        "ospfEnabled": True,
        "area": area,
        "ipAddress": address,
        "ipAddressPrefixlen": 30,
        "timerMsecs": hello_ms,
        "timerDeadSecs": 4 * hello_ms // 1000,
        "mtuBytes": 1500,
    }


def down(peer: str, address: str, check: CheckKind, state: str = "") -> DeviceChecks:
    fact = Fact(check=check, key=address, peer=peer, interface="", protocol="")
    missing = Missing(fact=fact, evidence="state", seen=[state] if state else [])
    return DeviceChecks(kind="failed", seconds=4.0, met=[], missing=[missing], platform="frr")


def reads(shown: dict[tuple[str, str], object]) -> Callable[[str, str], str]:
    def read(router: str, command: str) -> str:
        if (router, command) not in shown:
            raise LabbotError(f"vtysh on {router}: % Unknown command: {command}")
        return json.dumps(shown[router, command])

    return read


LINKS = [("R1", "eth0", "R2", "eth0"), ("R2", "eth1", "R3", "eth0")]


@pytest.mark.parametrize(
    ("r2", "r3", "found"),
    [
        (
            ospf_interface("0.0.0.0"),
            ospf_interface("0.0.0.1", address="10.0.23.2"),
            [("area", "0", "1")],
        ),
        (
            ospf_interface("0.0.0.0", 10000),
            ospf_interface("0.0.0.0", address="10.0.23.2"),
            [("hello", "10", "1"), ("dead", "40", "4")],
        ),
        (
            ospf_interface("0.0.0.0"),
            ospf_interface("0.0.0.0", address="10.0.24.2"),
            [("subnet", "10.0.23.1/30", "10.0.24.2/30")],
        ),
        (ospf_interface("0.0.0.0"), ospf_interface("0.0.0.0", address="10.0.23.2"), []),
    ],
)
def test_why_an_ospf_adjacency_stays_down_is_read_from_both_ends(
    r2: dict[str, object], r3: dict[str, object], found: list[tuple[str, str, str]]
) -> None:
    read = reads(
        {
            ("R2", OSPF_INTERFACES): {"interfaces": {"eth1": r2}},
            ("R3", OSPF_INTERFACES): {"interfaces": {"eth0": r3}},
        }
    )
    checks = {
        "R3": down("R2", "10.0.23.1", "ospf_neighbors"),
        "R2": down("R3", "10.0.23.2", "ospf_neighbors"),
    }
    causes = session_causes(checks, LINKS, read)
    assert [(c["kind"], c["mine"], c["theirs"]) for c in causes] == found
    assert all((c["device"], c["peer"]) == ("R2", "R3") for c in causes)


def test_an_end_without_ospf_is_named_and_an_unreadable_router_gives_no_cause() -> None:
    read = reads({("R2", OSPF_INTERFACES): {"interfaces": {"eth1": ospf_interface("0.0.0.0")}}})
    checks = {"R2": down("R3", "10.0.23.2", "ospf_neighbors")}
    assert session_causes(checks, LINKS, read) == []  # R3's interfaces could not be read
    read = reads(
        {
            ("R2", OSPF_INTERFACES): {"interfaces": {"eth1": ospf_interface("0.0.0.0")}},
            ("R3", OSPF_INTERFACES): {},
        }
    )
    (cause,) = session_causes(checks, LINKS, read)
    assert (cause["kind"], cause["device"], cause["mine"]) == ("ospf_off", "R3", "eth0")


@pytest.mark.parametrize(
    ("r2_neighbors", "r3_table", "found"),
    [
        (
            {"10.0.23.2": {"remoteAs": 65003}},
            {"localAS": 65099},
            ("peer_as", "R2", "65003", "65099"),
        ),
        ({}, {"localAS": 65003}, ("no_peer", "R2", "10.0.23.2", "")),
        (
            {"10.0.23.2": {"remoteAs": 65003}},
            {"warning": "Default BGP instance not found"},
            ("no_bgp", "R3", "", ""),
        ),
        (
            {"10.0.23.2": {"remoteAs": 65003, "lastNotificationReason": "Cease/Peer Unconfigured"}},
            {"localAS": 65003},
            ("notice", "R2", "Cease/Peer Unconfigured", ""),
        ),
    ],
)
def test_why_a_bgp_session_stays_down_is_read_from_the_router_and_its_peer(
    r2_neighbors: dict[str, object], r3_table: dict[str, object], found: tuple[str, str, str, str]
) -> None:
    read = reads(
        {
            ("R2", BGP_TABLE): {"localAS": 65002},
            ("R2", BGP_NEIGHBORS): r2_neighbors,
            ("R3", BGP_TABLE): r3_table,
        }
    )
    (cause,) = session_causes(
        {"R2": down("R3", "10.0.23.2", "bgp_sessions", "Active")}, LINKS, read
    )
    assert (cause["kind"], cause["device"], cause["mine"], cause["theirs"]) == found


def test_the_twins_links_name_each_end_as_its_router_does() -> None:
    """GNS3 names a qemu node's ports Ethernet0.., FRR its NICs eth0..: the twin links eth0."""

    def router(name: str, *interfaces: str) -> DeviceFacts:
        found = facts(name)
        found["interfaces"] = [
            InterfaceFacts(name=interface, address=None, enabled=True) for interface in interfaces
        ]
        return found

    devices = {"R1": router("R1", "lo", "eth0"), "R2": router("R2", "lo", "eth0", "ETH1")}
    links = [
        Link(a_device="R1", a_interface="Ethernet0", b_device="R2", b_interface="Ethernet0"),
        Link(a_device="R2", a_interface="eth1", b_device="R3", b_interface="Ethernet0"),  # no R3
        Link(a_device="R1", a_interface="Ethernet7", b_device="R2", b_interface="gi0/1"),
    ]
    assert twin_links(links, devices) == [
        ("R1", "eth0", "R2", "eth0"),
        ("R1", "Ethernet7", "R2", "gi0/1"),  # no such NIC: the port's own name
    ]
    interfaces = twin_interfaces(devices, twin_links(links, devices))
    assert interfaces["R1"] == [("lo", None), ("eth0", None), ("Ethernet7", None)]


def test_a_notification_the_other_ends_cause_explains_is_left_out() -> None:
    notice = {"remoteAs": 65002, "lastNotificationReason": "OPEN Message Error/Bad Peer AS"}
    read = reads(
        {
            ("R2", BGP_TABLE): {"localAS": 65002},
            ("R2", BGP_NEIGHBORS): {"10.0.23.2": {"remoteAs": 65003}},
            ("R3", BGP_TABLE): {"localAS": 65099},
            ("R3", BGP_NEIGHBORS): {"10.0.23.1": notice},
        }
    )
    checks = {
        "R2": down("R3", "10.0.23.2", "bgp_sessions", "Idle"),
        "R3": down("R2", "10.0.23.1", "bgp_sessions", "Idle"),
    }
    causes = session_causes(checks, LINKS, read)
    assert [(c["kind"], c["device"]) for c in causes] == [("peer_as", "R2")]
