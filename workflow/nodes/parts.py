"""What the graph's working nodes share (workflow/nodes/change.py puts them together): their
collaborators and settings, and the small steps more than one node takes — the topology and
template read so far, a planning round, the retry or the end after errors, the params review."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from langgraph.types import Command

from base.vocabulary import Status, utc_now
from workflow.model import PlanRequest, TemplateProposal, TokenUsage, Topology, add_tokens
from workflow.nodes.gates import Clock, params_review
from workflow.options import WorkflowOptions
from workflow.phases.lab_twin import LabTwinAnswer
from workflow.phases.lab_twin_run import LabRehearsal
from workflow.phases.previews import DevicePreview
from workflow.phases.reviews import ParamsReview
from workflow.ports import ConfigTrial, DeviceGateway, DeviceLocks, Planner, SavedTemplates
from workflow.results.endings import Stage, StillInvalid
from workflow.safety.deny import DenyList
from workflow.state import ChangeState, PlanningState, finish
from workflow.templates.render_pool import RenderPool


@dataclass(frozen=True)
class NodeParts:
    """The nodes' collaborators (built by bot/wiring) and the workflow's settings (`options`)."""

    planner: Planner
    gateway: DeviceGateway
    deny_list: DenyList = field(default_factory=DenyList)
    clock: Clock = utc_now
    options: WorkflowOptions = field(default_factory=WorkflowOptions)
    saved: SavedTemplates | None = None  # the team's library, for "a newer version exists"
    trial: ConfigTrial | None = None  # the template's twin: where its lines land, before a gate
    renderer: RenderPool | None = None  # worker processes with caps (None: render in-process)
    # hold the targets from the params gate to the push (LABBOT_LOCK_FROM_PREVIEW); a change
    # that ends releases them (ChangeWorkflow)
    preview_locks: DeviceLocks | None = None
    lab_twin: LabRehearsal | None = None  # a twin of the whole lab tries the previewed lines

    def _request(self, state: ChangeState, previous: Any, topology: Topology) -> PlanRequest:
        planning, request = state["planning"], state["request"]
        return PlanRequest(
            text=request["text"],
            topology=topology,
            feedback=planning["feedback"],
            errors=tuple(planning["errors"]),
            previous=previous if (planning["errors"] or planning["feedback"]) else None,
            scope=request["scope"],
        )

    def _retry_or_end(
        self, state: ChangeState, stage: Stage, errors: list[str], *, blocked: bool
    ) -> Command[str]:
        """Errors go back to the planner until max_attempts; then the change ends, saying why."""
        planning: PlanningState = {**state["planning"], "errors": errors}
        restore, attempt = state["rollback"]["restore"], planning["attempt"]
        if restore is None and attempt < self.options.plan_attempts:
            back_to = "propose_template" if stage == "template" else "propose_params"
            return Command(update={"planning": planning}, goto=back_to)
        ending = StillInvalid(kind="still_invalid", stage=stage, attempts=attempt, errors=errors)
        status: Status = "blocked" if blocked else "failed"
        return finish(state, status, ending, also={"planning": planning})


def topology_of(state: ChangeState) -> Topology:
    topology = state["lab"]["topology"]
    assert topology is not None, "node reached before the lab was gathered"
    return topology


def template_of(state: ChangeState) -> TemplateProposal:
    template = state["template"]["proposal"]
    assert template is not None, "node reached before a template was proposed"
    return template


def proposed(planning: PlanningState, stage: str, tokens: TokenUsage | None) -> PlanningState:
    """The round after one more proposal of `stage`, and what it cost."""
    used = add_tokens(planning["tokens"], stage, tokens)
    return {**planning, "attempt": planning["attempt"] + 1, "tokens": used}


def params_review_of(
    state: ChangeState,
    previews: dict[str, DevicePreview],
    newer: dict[str, int],
    lab_twin: LabTwinAnswer | None,
) -> ParamsReview:
    """What the params gate shows (and the push checks it approved) for these previews and
    the lab twin's answer."""
    approved, push = state["gates"]["approved"]["template"], state["push"]
    return params_review(
        template_of(state), previews, approved, newer, push["drifted"], push["result"], lab_twin
    )
