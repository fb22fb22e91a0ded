"""The devices a push did not change as approved, said at the rollback gate and after it: pure,
through the presenter, as the thread shows them."""

from __future__ import annotations

from bot.views.presenter import present_gate, present_result
from tests.support.masks import MASK
from workflow.api import Finished, RollbackGate
from workflow.model import ResponseItem, StandardResponse
from workflow.phases.reviews import RollbackLines, RollbackReview
from workflow.results.endings import RollbackEnding
from workflow.results.responses import build_response

DRIFT = "--- previewed\n+++ now\n+ntp server 10.7.7.7"
DRIFTED = "R3 changed since the preview; not pushed"
REJECTED = "the device rejected a line: % Invalid (lines before it were applied)"


def item(name: str, error: str = "") -> ResponseItem:
    if error:
        return ResponseItem(id=name, name=name, status="failed", error=error)
    return ResponseItem(id=name, name=name, status="success", result="1 line(s) pushed")


def rollback_gate(push: StandardResponse, devices: list[str]) -> RollbackGate:
    checks = build_response([item("R1", "post-checks failed")])
    review = RollbackReview(
        push=push,
        post_checks=checks,
        devices={
            name: RollbackLines(lines=["no ip route 10.99.0.0 255.255.0.0"]) for name in devices
        },
    )
    return RollbackGate("int-1", "rollback", "chg-1", review, "s" * 64, "2999-01-01T00:00:00+00:00")


def test_the_gate_names_each_device_not_pushed_with_why_and_what_the_choices_do_to_it() -> None:
    push = build_response(
        [item("R1"), item("R2", REJECTED), item("R3", DRIFTED)], metadata={"drifted": {"R3": DRIFT}}
    )
    message = present_gate(rollback_gate(push, ["R1", "R2"]), MASK)
    assert f"Not pushed as approved: R2: {REJECTED}; R3: {DRIFTED}." in message.text
    assert "Neither Roll back nor Keep changes R3; ask again" in message.text  # R2: lines to undo
    shown = {block.title: block.text for block in message.blocks}
    assert shown["R3 changed since the preview"] == DRIFT
    assert "R2 rollback lines" in shown and "R3 rollback lines" not in shown


def test_a_push_that_failed_without_drift_shows_no_drift() -> None:
    push = build_response([item("R1"), item("R3", "cannot connect to R3 (timed out)")])
    message = present_gate(rollback_gate(push, ["R1"]), MASK)
    assert "Not pushed as approved: R3: cannot connect to R3 (timed out)." in message.text
    assert "Neither Roll back nor Keep changes R3; ask again" in message.text
    assert not [block for block in message.blocks if "changed since" in block.title]


def test_a_gate_whose_push_reached_every_device_says_nothing_of_it() -> None:
    message = present_gate(rollback_gate(build_response([item("R1")]), ["R1"]), MASK)
    assert "Not pushed" not in message.text and "Neither" not in message.text


def test_after_the_offer_ended_the_devices_left_as_they_were_are_named() -> None:
    result = build_response([item("R1", "post-checks failed"), item("R3", DRIFTED)])
    expired = RollbackEnding(
        kind="expired",
        failures="R1: no route",
        at="2026-11-30T07:20:00+00:00",
        actor="",
        not_pushed=[item("R3", DRIFTED)],
    )
    message = present_result(Finished("chg-3", "failed", "", result, {}, rollback=expired), MASK)
    assert message.text.endswith(
        "the change stays as pushed. Not pushed as approved: R3: "
        f"{DRIFTED}. Ask again to change them."
    ), message.text
