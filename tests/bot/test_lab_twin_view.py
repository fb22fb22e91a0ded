"""The params gate's line about the lab's twin, from its typed answer (pure)."""

from __future__ import annotations

import pytest

from bot.views.lab_twin import lab_twin_note, lab_twin_sections
from workflow.phases.lab_twin import Cause, LabTwinAnswer, no_twin
from workflow.phases.reviews import ParamsReview, ReviewedTemplate
from workflow.postcheck_outcome import DeviceChecks, Fact, Missing, OutcomeKind


def ospf(peer: str, address: str, interface: str) -> Fact:
    return Fact(check="ospf_neighbors", key=address, peer=peer, interface=interface, protocol="")


def loopback(peer: str, prefix: str) -> Fact:
    return Fact(check="loopback_routes", key=prefix, peer=peer, interface="lo", protocol="")


def outcome(met: list[Fact], missing: list[Missing] | None = None) -> DeviceChecks:
    kind: OutcomeKind = "failed" if missing else "passed"
    return DeviceChecks(kind=kind, seconds=2.1, met=met, missing=missing or [], platform="frr")


def review(answer: LabTwinAnswer | None) -> ParamsReview:
    template = ReviewedTemplate(name="ospf", description="", sha256="")
    shown = ParamsReview(template=template, devices={})
    if answer is not None:
        shown["lab_twin"] = answer
    return shown


PASSED = LabTwinAnswer(
    kind="passed",
    routers=3,
    seconds=2.8,
    checks={
        "R1": outcome([ospf("R2", "10.0.12.2", "eth0"), loopback("R3", "10.255.0.3/32")]),
        "R2": outcome([ospf("R1", "10.0.12.1", "eth0"), ospf("R3", "10.0.23.2", "eth0")]),
        "R3": outcome([ospf("R2", "10.0.23.1", "eth1")]),
    },
    refused={},
)
INIT = Missing(fact=ospf("R3", "10.0.23.2", "eth0"), evidence="state", seen=["Init"])
FAILED = LabTwinAnswer(
    kind="failed",
    routers=3,
    seconds=20.0,
    checks={"R2": outcome([ospf("R1", "10.0.12.1", "eth0")], [INIT])},
    refused={"R3": ["router bgp 65009: BGP is already running; AS is 65003"]},
)


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        (
            PASSED,
            "\n🧪 On a twin of the lab (3 routers, 2.8 s): OSPF Full on R1–R2, R2–R3; "
            "R1 learns R3's loopback 10.255.0.3/32.",
        ),
        (
            FAILED,
            "\n⚠️ On a twin of the lab (3 routers, 20.0 s) the post-checks fail: R2–R3 stays "
            "Init (OSPF); R3 refused `router bgp 65009: BGP is already running; AS is 65003`. "
            "Execute pushes exactly the lines shown, failure and all.",
        ),
        (
            LabTwinAnswer(
                **{**FAILED, "refused": {}},  # type: ignore[typeddict-item]
                causes=[
                    Cause(
                        protocol="ospf", kind="area", device="R2", peer="R3", mine="0", theirs="1"
                    ),
                    Cause(
                        protocol="ospf", kind="hello", device="R2", peer="R3", mine="10", theirs="1"
                    ),
                    Cause(
                        protocol="bgp", kind="peer_as", device="R2", peer="R3", mine="1", theirs="2"
                    ),
                ],
            ),
            "\n⚠️ On a twin of the lab (3 routers, 20.0 s) the post-checks fail: R2–R3 stays "
            "Init (OSPF): area 0 on R2, area 1 on R3, hellos every 10 s on R2, every 1 s on R3. "
            "Execute pushes exactly the lines shown, failure and all.",
        ),
        (
            no_twin("not_frr", "S1 (cisco_ios)", 4),
            "\nℹ️ No twin of the lab for this change: a twin runs FRR routers only, and "
            "S1 (cisco_ios) are not.",
        ),
        (None, ""),
    ],
)
def test_lab_twin_note(answer: LabTwinAnswer | None, said: str) -> None:
    assert lab_twin_note(review(answer)) == said


def test_each_target_has_a_block_of_its_checks_on_the_twin() -> None:
    blocks = lab_twin_sections(review(PASSED))
    assert [title for title, _, _ in blocks] == [
        "R1 on the lab's twin",
        "R2 on the lab's twin",
        "R3 on the lab's twin",
    ]
    assert "✓ OSPF neighbour 10.0.23.2 (R3 eth0) Full" in blocks[1][1]
