"""Every way a change can end has its words: each typed ending of workflow/results/endings.py,
worded
by bot/views/ending.py with bot/messages/, says what happened with the ending's own facts."""

from __future__ import annotations

from typing import get_args, get_type_hints

import pytest

from base.errors import TargetError
from base.vocabulary import TargetProblem
from bot import messages
from bot.views.ending import newer_line, target_problem, why_ended
from tests.support.masks import MASK
from workflow.model import StandardResponse, TemplatePart
from workflow.results.endings import END_KINDS, Ending, EndKind, Refusal, Stage

PUSH: StandardResponse = {
    "success": False,
    "total": 2,
    "successful": 1,
    "failed": 1,
    "data": [
        {"id": "R1", "name": "R1", "status": "success", "result": "ok"},
        {"id": "R2", "name": "R2", "status": "failed", "error": "timed out"},
    ],
    "error": None,
    "metadata": {},
}
DENIED = Refusal(device="R1", line="reload", rule="deny_list", detail="reloads the device")
OUTSIDE = Refusal(device="R2", line="hostname x", rule="sections", detail="router ospf *")

# One ending of each kind, and what its sentence must say.
EXAMPLES: list[tuple[Ending, list[str]]] = [
    (
        {
            "kind": "expired",
            "gate": "params",
            "at": "2026-11-30T07:15:03+00:00",
            "actor": "",
            "pushed": False,
        },
        ["params review expired at 2026-11-30 07:15:03 UTC", "nothing was pushed"],
    ),
    (
        {
            "kind": "cancelled",
            "gate": "template",
            "at": "2026-11-30T07:15:03+00:00",
            "actor": "bob",
            "pushed": True,
        },
        ["bob cancelled the change at the template review", "nothing more was pushed"],
    ),
    (
        {
            "kind": "targets",
            "problem": "unknown",
            "word": "R9",
            "known": ["R1", "R2"],
            "count": 0,
            "limit": 0,
        },
        ["which devices? there is no device 'R9' (lab devices: R1, R2)", "nothing was read"],
    ),
    (
        {"kind": "lab_unreadable", "error": "GNS3 at http://x:3080 did not answer", "again": False},
        ["could not read the lab: GNS3 at http://x:3080 did not answer"],
    ),
    (
        {"kind": "lab_unreadable", "error": "R1 timed out", "again": True},
        ["could not read the lab again: R1 timed out"],
    ),
    (
        {"kind": "no_usable_device", "devices": [{"name": "PC1", "reason": "type unknown"}]},
        ["no usable device in the lab (PC1: type unknown)"],
    ),
    ({"kind": "no_usable_device", "devices": []}, ["no usable device in the lab (none found)"]),
    (
        {"kind": "nothing_to_roll_back", "change_id": "chg-7"},
        ["change chg-7 left nothing to roll back"],
    ),
    (
        {"kind": "planner_failed", "stage": "template", "error": "no template fits"},
        ["the planner could not propose a template: no template fits"],
    ),
    (
        {"kind": "still_invalid", "stage": "parameters", "attempts": 3, "errors": ["bad a", "b"]},
        ["parameters proposal was still invalid after 3 attempt(s)", "\n- bad a\n- b"],
    ),
    (
        {"kind": "devices_held", "held": [{"device": "R1", "change_id": "chg-2"}]},
        ["R1 is held by change chg-2 from its preview until its push ends"],
    ),
    (
        {"kind": "hash_mismatch", "planned": "a" * 64, "approved": "b" * 64},
        ["the plan's hash aaaaaaaaaaaa is not the one approved (bbbbbbbbbbbb)"],
    ),
    (
        {"kind": "push_refused", "rollback": False, "refusals": [DENIED, OUTSIDE]},
        [
            "refused to push, nothing was sent: R1: 'reload' is not allowed (reloads the device)",
            "R2: `hostname x` is outside the sections the template may touch (router ospf *)",
        ],
    ),
    (
        {"kind": "push_refused", "rollback": True, "refusals": [DENIED]},
        ["refused to roll back, nothing was sent: R1: 'reload' is not allowed"],
    ),
    (
        {"kind": "push_not_started", "error": "R1 is locked by change chg-3"},
        ["the push could not start: R1 is locked by change chg-3"],
    ),
    (
        {"kind": "rollback_not_started", "failures": "R2: OSPF Init", "error": "R2 timed out"},
        ["post-checks failed (R2: OSPF Init); the rollback could not start: R2 timed out"],
    ),
    (
        {"kind": "post_checks_not_run", "error": "R1 refused the login"},
        ["the post-checks could not run: R1 refused the login"],
    ),
    ({"kind": "pushed", "rollback": False}, ["pushed to 1 of 2 devices; failed: R2: timed out"]),
    ({"kind": "pushed", "rollback": True}, ["rollback pushed to 1 of 2 devices; failed: R2"]),
]


@pytest.mark.parametrize(("ending", "says"), EXAMPLES, ids=[e["kind"] for e, _ in EXAMPLES])
def test_each_ending_is_said_with_its_facts(ending: Ending, says: list[str]) -> None:
    text = why_ended(ending, PUSH, MASK)
    for part in says:
        assert part in text, text
    assert "{" not in text and "}" not in text  # no blank left unfilled


def test_every_kind_of_ending_has_words_and_an_example() -> None:
    declared = {
        kind for member in get_args(Ending) for kind in get_args(get_type_hints(member)["kind"])
    }
    assert declared == set(END_KINDS) == set(get_args(EndKind))
    assert set(messages.ENDED) == set(END_KINDS)
    assert {ending["kind"] for ending, _ in EXAMPLES} == set(END_KINDS)
    assert set(messages.PROPOSAL_OF) == set(get_args(Stage))
    assert set(messages.REFUSED_LINE) == set(get_args(get_type_hints(Refusal)["rule"]))


@pytest.mark.parametrize("problem", get_args(TargetProblem))
def test_every_target_problem_names_the_lab_devices_or_the_limit(problem: TargetProblem) -> None:
    said = target_problem(TargetError(problem, "R9", ("R1", "R2"), count=60, limit=50))
    assert ("(lab devices: R1, R2)" in said) != (problem == "too_many"), said
    hard_cap = "selects 60 devices, more than any change may (LABBOT_MAX_TARGETS_CONFIRMED=50)"
    assert problem != "too_many" or hard_cap in said


def test_a_newer_saved_version_is_named_beside_the_one_the_change_used() -> None:
    used = [TemplatePart(name="lab_ospf", version=1, sha256="s", source="saved", derive="none")]
    said = newer_line({"lab_ospf": 3}, used)
    assert said == (
        "A newer version exists: lab_ospf@3 (this change uses @1); this change keeps what was "
        "approved."
    )
    assert newer_line({}, used) == ""
