"""Whether a lab can have a twin (pure), and that the twin's answer is part of what the params
gate's hash covers: Execute approves the answer shown with the lines."""

from __future__ import annotations

import pytest

from workflow.hashing import content_sha256
from workflow.model import DeviceFacts, ResponseItem, TemplateProposal
from workflow.nodes.gates import params_review
from workflow.phases.lab_twin import (
    DISAGREES,
    LabTwinAnswer,
    no_twin,
    twin_refusal,
    wants_twin,
    with_disagreements,
)
from workflow.postcheck_outcome import DeviceChecks, OutcomeKind
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
