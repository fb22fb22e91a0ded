"""The graph's state: JSON-shaped only, so any checkpointer stores it without custom serializers.

A checkpoint kept by an older release lacks the keys added since: `upgraded` gives them their
empty value, in one place, for every node (workflow/graph.py) and every reader of a snapshot
(workflow/steps.py, workflow/api.py), so nothing reads a key with `.get()` for its age.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NotRequired, TypedDict, cast

from langgraph.graph import END
from langgraph.types import Command

from base.vocabulary import Choice, GateName, Status
from workflow.endings import Ending, RollbackEnding
from workflow.model import StandardResponse, TemplateProposal, TokenUsage, Topology
from workflow.previews import DevicePreview
from workflow.push_records import PushRecord
from workflow.reviews import GateInfo, TemplateReview


class Requester(TypedDict):
    """Who asked for the change."""

    id: str
    name: str


class DecisionRecord(TypedDict):
    gate: GateName
    choice: Choice
    sha256: str
    actor_id: str
    actor_name: str
    feedback: str | None
    at: str


class ChangeOutcome(TypedDict):
    """How a change ended: `ending` says why (typed; the bot words it)."""

    status: Status
    message: str  # "": kept for checkpoints from before typed endings, which said why here
    ending: NotRequired[Ending]
    rollback: NotRequired[RollbackEnding]  # after failed post-checks
    result: StandardResponse | None
    newer_versions: NotRequired[dict[str, int]]  # saved templates used -> their newest version


class ChangeState(TypedDict):
    change_id: str
    text: str
    requester: Requester
    rollback_of: str | None
    topology: Topology | None
    rollback: dict[str, list[str]] | None  # lines per device, for a rollback change
    template: TemplateProposal | None
    examples: dict[str, list[str]]  # platform family -> example rendering
    device_params: dict[str, dict[str, Any]] | None
    previews: dict[str, DevicePreview]
    attempt: int  # proposals made in the current round (reset by a gate decision)
    errors: list[str]  # validation errors of the last proposal, for the planner
    feedback: str | None  # the reviewer's Modify text
    gate: GateInfo | None
    approved: dict[str, str]  # gate name -> sha256 approved
    decisions: list[DecisionRecord]
    tokens: dict[str, TokenUsage]  # "template" / "params" -> usage summed over attempts
    push_result: StandardResponse | None
    outcome: ChangeOutcome | None
    # Added later (checkpoints from before lack them: see `upgraded`). With the template library:
    scope: str  # the channel/room of the request, where template pins apply
    shown_template: TemplateReview | None  # the last template gate's payload (what was approved)
    newer_versions: dict[str, int]  # saved templates used in an older version -> newest
    # With post-checks:
    post_check_result: StandardResponse | None  # per device, after the push
    undo_plan: dict[str, list[str]] | None  # lines the rollback gate offers, per device
    # With the drift check:
    drifted: dict[str, str]  # device -> what changed since its preview (the push left it alone)
    # With sections by effect:
    landed_outside: dict[str, list[str]] | None  # device -> lines its push left outside
    # With push records:
    pushes: list[PushRecord]  # every device of every push of the change, in order


def initial_state(
    change_id: str,
    text: str,
    requester: Requester,
    rollback_of: str | None,
    scope: str = "",
) -> ChangeState:
    """A fresh change: every key set, so a thread reused for a new change keeps nothing old."""
    fresh: dict[str, Any] = dict(
        change_id=change_id,
        text=text,
        requester=requester,
        rollback_of=rollback_of,
        topology=None,
        rollback=None,
        template=None,
        examples={},
        device_params=None,
        previews={},
        attempt=0,
        errors=[],
        feedback=None,
        gate=None,
        approved={},
        decisions=[],
        tokens={},
        push_result=None,
        outcome=None,
        scope=scope,
    )
    return upgraded(fresh)


def upgraded(values: Mapping[str, Any]) -> ChangeState:
    """`values` as any release kept them, with the keys added since at their empty value."""
    added_later: dict[str, Any] = dict(
        scope="",
        shown_template=None,
        newer_versions={},
        post_check_result=None,
        undo_plan=None,
        drifted={},
        landed_outside=None,
        pushes=[],
    )
    return cast(ChangeState, {**added_later, **values})


def finish(
    status: Status,
    ending: Ending,
    result: StandardResponse | None = None,
    *,
    newer_versions: dict[str, int] | None = None,
    rollback: RollbackEnding | None = None,
    also: dict[str, Any] | None = None,
) -> Command[str]:
    """End the change: the outcome is what `ChangeWorkflow.outcome()` and `Finished` report.

    `also`: further state updates made with the ending (e.g. the cancelling decision).
    """
    outcome = ChangeOutcome(status=status, message="", ending=ending, result=result)
    if newer_versions:
        outcome["newer_versions"] = newer_versions
    if rollback:
        outcome["rollback"] = rollback
    return Command(update={**(also or {}), "outcome": outcome, "gate": None}, goto=END)
