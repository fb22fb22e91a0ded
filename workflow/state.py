"""The graph's state, in one part per phase of a change: JSON-shaped only, so any checkpointer
stores it without custom serializers.

Each part is one channel of the graph: a node reads the parts it needs and returns whole the
parts it changes. A checkpoint kept before the parts (one flat dict of keys) is upgraded when it
is loaded, in one place: workflow/checkpoints/state_upgrade.py.
"""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict, cast

from langgraph.graph import END
from langgraph.types import Command, StateSnapshot

from base.vocabulary import Choice, GateName, Status
from workflow.model import StandardResponse, TemplateProposal, TokenUsage, Topology
from workflow.phases.lab_twin import LabTwinAnswer
from workflow.phases.previews import DevicePreview
from workflow.phases.reviews import GateInfo, TemplateReview
from workflow.results.endings import Ending, RollbackEnding
from workflow.results.push_records import PushRecord

__all__ = [
    "ChangeState",
    "ChecksState",
    "DecisionRecord",
    "GatesState",
    "LabState",
    "PlanningState",
    "PushState",
    "Requester",
    "RollbackState",
    "TemplateState",
    "finish",
    "with_open_gate",
]


class Requester(TypedDict):
    """Who asked for the change."""

    id: str
    name: str


class RequestState(TypedDict):
    """What was asked, by whom and where: set when the change starts, never changed."""

    change_id: str
    text: str
    requester: Requester
    rollback_of: str | None  # the change this one rolls back
    scope: str  # the channel/room of the request, where template pins apply


class LabState(TypedDict):
    """The lab as the change read it (None before it is gathered)."""

    topology: Topology | None


class PlanningState(TypedDict):
    """The planner's round: what it is told for its next proposal, and what proposals cost."""

    attempt: int  # proposals made in the current round (reset by a gate decision)
    errors: list[str]  # validation errors of the last proposal
    feedback: str | None  # the reviewer's Modify text
    tokens: dict[str, TokenUsage]  # "template" / "params" -> usage summed over attempts


class TemplateState(TypedDict):
    """The template proposed, its example renderings, and what its gate showed."""

    proposal: TemplateProposal | None
    examples: dict[str, list[str]]  # platform family -> example rendering
    shown: TemplateReview | None  # the last template gate's payload (what was approved)
    newer_versions: dict[str, int]  # saved templates used in an older version -> newest


class ParamsState(TypedDict):
    """The parameters proposed per device and each device's preview (lines, diff)."""

    device_params: dict[str, dict[str, Any]] | None
    previews: dict[str, DevicePreview]
    lab_twin: NotRequired[LabTwinAnswer | None]  # the lab's twin's answer shown at the gate


class PushState(TypedDict):
    """What the push did: its result, the devices it left alone, every device's record."""

    result: StandardResponse | None
    drifted: dict[str, str]  # device -> what changed since its preview (the push left it alone)
    records: list[PushRecord]  # every device of every push of the change, in order


class ChecksState(TypedDict):
    """What the post-checks found after the push."""

    result: StandardResponse | None  # per device
    landed_outside: dict[str, list[str]] | None  # device -> lines its push left outside


class RollbackState(TypedDict):
    """The lines that undo: a rollback change's (gathered), the rollback gate's offer."""

    restore: dict[str, list[str]] | None  # lines per device, when this change is a rollback
    undo_plan: dict[str, list[str]] | None  # lines the rollback gate offers, per device


class DecisionRecord(TypedDict):
    gate: GateName
    choice: Choice
    sha256: str
    actor_id: str
    actor_name: str
    feedback: str | None
    at: str


class GatesState(TypedDict):
    """What every gate shares: the one open now, the hashes approved, every decision."""

    open: GateInfo | None
    approved: dict[str, str]  # gate name -> sha256 approved
    decisions: list[DecisionRecord]


class ChangeOutcome(TypedDict):
    """How a change ended: `ending` says why (typed; the bot words it)."""

    status: Status
    message: str  # "": kept for checkpoints from before typed endings, which said why here
    ending: NotRequired[Ending]
    rollback: NotRequired[RollbackEnding]  # after failed post-checks
    result: StandardResponse | None
    newer_versions: NotRequired[dict[str, int]]  # saved templates used -> their newest version


class ChangeState(TypedDict):
    request: RequestState
    lab: LabState
    planning: PlanningState
    template: TemplateState
    params: ParamsState
    push: PushState
    checks: ChecksState
    rollback: RollbackState
    gates: GatesState
    outcome: ChangeOutcome | None


def initial_state(
    change_id: str,
    text: str,
    requester: Requester,
    rollback_of: str | None,
    scope: str = "",
) -> ChangeState:
    """A fresh change: every part set, so a thread reused for a new change keeps nothing old."""
    request = RequestState(
        change_id=change_id, text=text, requester=requester, rollback_of=rollback_of, scope=scope
    )
    return ChangeState(
        request=request,
        lab=LabState(topology=None),
        planning=PlanningState(attempt=0, errors=[], feedback=None, tokens={}),
        template=TemplateState(proposal=None, examples={}, shown=None, newer_versions={}),
        params=ParamsState(device_params=None, previews={}),
        push=PushState(result=None, drifted={}, records=[]),
        checks=ChecksState(result=None, landed_outside=None),
        rollback=RollbackState(restore=None, undo_plan=None),
        gates=GatesState(open=None, approved={}, decisions=[]),
        outcome=None,
    )


def state_of(snapshot: StateSnapshot) -> ChangeState | None:
    """The change's state in a checkpoint read by the graph; None where none was kept yet."""
    if "request" not in snapshot.values:
        return None
    return cast(ChangeState, snapshot.values)


def with_open_gate(state: ChangeState, info: GateInfo) -> GatesState:
    """The gates' part with `info` the gate open now."""
    return {**state["gates"], "open": info}


def finish(
    state: ChangeState,
    status: Status,
    ending: Ending,
    result: StandardResponse | None = None,
    *,
    newer_versions: dict[str, int] | None = None,
    rollback: RollbackEnding | None = None,
    also: dict[str, Any] | None = None,
) -> Command[str]:
    """End the change: the outcome is what `ChangeWorkflow.outcome()` and `Finished` report;
    its gate is closed.

    `also`: further parts updated with the ending (e.g. the gates' part with the cancelling
    decision, whose gate is closed too).
    """
    outcome = ChangeOutcome(status=status, message="", ending=ending, result=result)
    if newer_versions:
        outcome["newer_versions"] = newer_versions
    if rollback:
        outcome["rollback"] = rollback
    also = also or {}
    gates: GatesState = also["gates"] if "gates" in also else state["gates"]
    closed: GatesState = {**gates, "open": None}
    return Command(update={**also, "gates": closed, "outcome": outcome}, goto=END)
