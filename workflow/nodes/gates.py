"""The approval gates: what they show, how they are hashed, and what a decision does.

A gate node has no side effect before `interrupt()` (LangGraph re-runs a node from its top on
resume): the payload, its hash and its expiry are computed by the node before it and read from
the state. After the decision:

- a decision after `expires_at` ends the change as "expired";
- the decision answers the gate on show: its interrupt id and hash were checked once, by the
  caller, under the thread's lock (`workflow.steps.gate_problem`); a resume value that is no
  decision (a stale interrupt id hands the node the whole resume map) re-issues the same gate
  (a new interrupt id, same content);
- Approve records the approved hash; Modify sends the feedback back to the proposing node;
  Cancel ends the change.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from langgraph.types import Command, interrupt

from base.vocabulary import CHOICES, GateName
from workflow.chosen import Because
from workflow.hashing import content_sha256
from workflow.model import StandardResponse, TemplateProposal, TokenUsage
from workflow.phases.lab_twin import LabTwinAnswer
from workflow.phases.previews import DevicePreview
from workflow.phases.reviews import (
    GateInfo,
    ParamsGateInfo,
    ParamsReview,
    Review,
    ReviewedTemplate,
    RollbackGateInfo,
    RollbackReview,
    ShownGate,
    TargetsGateInfo,
    TargetsReview,
    TemplateGateInfo,
    TemplateReview,
)
from workflow.phases.template_assessment import TemplateTest
from workflow.results.endings import GateEnding
from workflow.safety.allowances import allowance_view
from workflow.state import ChangeState, DecisionRecord, GatesState, PlanningState, finish
from workflow.templates.facts import TemplateFacts

__all__ = ["ReviewGate"]

Clock = Callable[[], datetime]


def template_review(
    template: TemplateProposal,
    examples: dict[str, list[str]],
    example_facts: dict[str, TemplateFacts],
    *,
    template_test: dict[str, TemplateTest] | None = None,
    newer_versions: dict[str, int] | None = None,
    chosen: dict[str, Because] | None = None,
    tokens: TokenUsage | None = None,
) -> TemplateReview:
    """What the template reviewer sees: the templates, their schema (with the values the
    request gave) and an example rendering;
    for templates reading `facts`, the facts the example was rendered with; the templates it
    is made of (`parts`), its post-checks, the template test, newer versions and why each
    target was chosen, when there are any."""
    review = TemplateReview(
        name=template["name"],
        description=template["description"],
        source=template["source"],
        targets=template["targets"],
        templates=template["templates"],
        params_schema=template["params_schema"],
        example_params=template["example_params"],
        example_rendering=examples,
    )
    if template.get("requested"):
        review["requested"] = template["requested"]
    if example_facts:
        review["example_facts"] = example_facts
    if template.get("parts"):
        review["parts"] = template["parts"]
    if template.get("post_checks"):
        review["post_checks"] = template["post_checks"]
    if newer_versions:
        review["newer_versions"] = newer_versions
    if template_test:
        review["template_test"] = template_test
    if chosen:
        review["chosen"] = chosen
    if template.get("sections"):
        review["sections"] = template["sections"]
    if allowed := allowance_view(template):
        review["allow"] = allowed
    if tokens and tokens["total_tokens"]:  # what the LLM's proposals cost, every attempt
        review["tokens"] = tokens
    return review


def params_review(
    template: TemplateProposal,
    previews: dict[str, DevicePreview],
    template_sha256: str,
    newer_versions: dict[str, int] | None = None,
    drifted: dict[str, str] | None = None,
    pushed: StandardResponse | None = None,
    lab_twin: LabTwinAnswer | None = None,
) -> ParamsReview:
    """What the params reviewer sees, per device: params, rendered lines, diff, blocked lines;
    the newer saved versions of the templates used, and what changed on devices since an
    earlier preview, when there are any."""
    review = ParamsReview(
        template=ReviewedTemplate(
            name=template["name"], description=template["description"], sha256=template_sha256
        ),
        devices=previews,
    )
    if newer_versions:
        review["newer_versions"] = dict(newer_versions)
    if drifted:
        review["drifted"] = dict(drifted)
    if drifted and pushed is not None:
        review["pushed"] = pushed
    if lab_twin is not None:
        review["lab_twin"] = lab_twin
    return review


def open_targets_gate(
    state: ChangeState, review: TargetsReview, clock: Clock, ttl: float
) -> TargetsGateInfo:
    return TargetsGateInfo(gate="targets", payload=review, **_shown(state, review, clock, ttl))


def confirm_targets(
    state: ChangeState, chosen: Mapping[str, Because], limit: int, clock: Clock, ttl: float
) -> Command[str] | None:
    """More devices than `limit` (LABBOT_MAX_TARGETS): the targets gate, unless exactly these
    devices were confirmed already (a Modify of the template goes back through gather)."""
    if len(chosen) <= limit:
        return None
    review = TargetsReview(limit=limit, devices=dict(sorted(chosen.items())))
    if state["gates"]["approved"].get("targets") == content_sha256(review):
        return None
    info = open_targets_gate(state, review, clock, ttl)
    return Command(update={"gates": {**state["gates"], "open": info}}, goto="targets_gate")


def open_template_gate(
    state: ChangeState, review: TemplateReview, clock: Clock, ttl: float
) -> TemplateGateInfo:
    return TemplateGateInfo(gate="template", payload=review, **_shown(state, review, clock, ttl))


def open_params_gate(
    state: ChangeState, review: ParamsReview, clock: Clock, ttl: float
) -> ParamsGateInfo:
    return ParamsGateInfo(gate="params", payload=review, **_shown(state, review, clock, ttl))


def open_rollback_gate(
    state: ChangeState, review: RollbackReview, clock: Clock, ttl: float
) -> RollbackGateInfo:
    return RollbackGateInfo(gate="rollback", payload=review, **_shown(state, review, clock, ttl))


def _shown(state: ChangeState, review: Review, clock: Clock, ttl: float) -> ShownGate:
    return ShownGate(
        change_id=state["request"]["change_id"],
        sha256=content_sha256(review),
        expires_at=(clock() + timedelta(seconds=ttl)).isoformat(),
    )


def is_expired(info: GateInfo, now: datetime) -> bool:
    return now >= datetime.fromisoformat(info["expires_at"])


@dataclass(frozen=True)
class ReviewGate:
    """The node `<gate>_gate`: interrupt with the prepared payload, then apply the decision."""

    gate: GateName
    approve_to: str
    modify_to: str
    clock: Clock

    @property
    def node_name(self) -> str:
        return f"{self.gate}_gate"

    async def __call__(self, state: ChangeState) -> Command[str]:
        info = state["gates"]["open"]
        assert info is not None and info["gate"] == self.gate, f"{self.node_name} without its gate"
        decision = interrupt(info)
        now = self.clock()
        if is_expired(info, now):
            ending = GateEnding(
                kind="expired",
                gate=self.gate,
                at=info["expires_at"],
                actor="",
                pushed=bool(state["push"]["result"]),
            )
            return finish(state, "expired", ending)
        if not is_decision(decision):
            return Command(goto=self.node_name)  # re-issued: same content, new interrupt id
        return self._apply(state, info, decision_record(self.gate, decision, now))

    def _apply(self, state: ChangeState, info: GateInfo, record: DecisionRecord) -> Command[str]:
        gates = decided(state, record)
        if record["choice"] == "cancel":
            ending = GateEnding(
                kind="cancelled",
                gate=self.gate,
                at=record["at"],
                actor=record["actor_name"],
                pushed=bool(state["push"]["result"]),
            )
            return finish(state, "cancelled", ending, also={"gates": gates})
        if record["choice"] == "modify":
            update = {"gates": gates, "planning": _next_round(state, record["feedback"])}
            return Command(update=update, goto=self.modify_to)
        gates["approved"] = {**gates["approved"], self.gate: info["sha256"]}
        # the devices confirmed came from the words in use (a Modify's among them): keep them
        feedback = state["planning"]["feedback"] if self.gate == "targets" else None
        update = {"gates": gates, "planning": _next_round(state, feedback)}
        return Command(update=update, goto=self.approve_to)


def decided(state: ChangeState, record: DecisionRecord) -> GatesState:
    """The gates' part once `record` decided the open gate: recorded, the gate closed."""
    gates = state["gates"]
    return {**gates, "open": None, "decisions": [*gates["decisions"], record]}


def _next_round(state: ChangeState, feedback: str | None) -> PlanningState:
    """The planner's next round after a decision: no attempt yet, no error, `feedback`."""
    return {**state["planning"], "attempt": 0, "errors": [], "feedback": feedback}


def is_decision(value: object) -> bool:
    """A resume value shaped as a decision (a choice), not an expiry nor a resume map."""
    return isinstance(value, dict) and value.get("choice") in CHOICES


def decision_record(gate: GateName, decision: dict[str, Any], now: datetime) -> DecisionRecord:
    return DecisionRecord(
        gate=gate,
        choice=decision["choice"],
        sha256=str(decision["sha256"]),
        actor_id=str(decision.get("actor_id", "")),
        actor_name=str(decision.get("actor_name", "")),
        feedback=decision.get("feedback"),
        at=now.isoformat(),
    )
