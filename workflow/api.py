"""What the bot calls: start a change, resume a gate by its interrupt id, read where it stands.

A gate is resumed only through `resume(thread_id, gate, decision)`, by the gate's interrupt id,
never with a plain value (a second plain resume would answer the NEXT gate), or ended by
`expire` once past its expiry (in nobody's name). The steps it returns are declared in
workflow/steps.py, each with the pushes its run made, and `gate_problem`, the one rule a
decision must pass: it answers the pending interrupt ("stale" otherwise) and the hash of what
that gate shows ("changed" otherwise).

Callers serialize the calls of one thread: the decision service holds the thread's lock
(storage.locks.thread_lock, across processes) around each start and each read-check-record-
resume, so the gate it read and checked is still the pending one when it resumes it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.types import Command

from base.errors import GateError
from base.vocabulary import CHOICES
from workflow.graph import build_graph
from workflow.hashing import content_sha256
from workflow.library.compose import proposal_parts
from workflow.model import (
    PlanRequest,
    StepProgress,
    TemplatePart,
)
from workflow.nodes.change import Nodes
from workflow.phases.previews import DevicePreview
from workflow.phases.reviews import GateDecision as GateDecision
from workflow.phases.reviews import GateExpiry, TemplateReview
from workflow.results.feedback import FeedbackProblem, FeedbackReader
from workflow.state import Requester, initial_state, state_of
from workflow.step_progress import StepContext
from workflow.steps import Finished as Finished
from workflow.steps import Gate as Gate
from workflow.steps import LabLayout as LabLayout
from workflow.steps import ParamsGate as ParamsGate
from workflow.steps import PendingGate as PendingGate
from workflow.steps import RollbackGate as RollbackGate
from workflow.steps import Step as Step
from workflow.steps import TargetsGate as TargetsGate
from workflow.steps import TemplateGate as TemplateGate
from workflow.steps import finished_of, pending_gate_of
from workflow.steps import gate_problem as gate_problem
from workflow.steps import pushed_on as pushed_on

__all__ = [
    "ApprovedTemplate",
    "ChangeWorkflow",
    "Finished",
    "Gate",
    "GateDecision",
    "LabLayout",
    "ParamsGate",
    "PendingGate",
    "RollbackGate",
    "Step",
    "TargetsGate",
    "TemplateGate",
    "gate_problem",
    "pushed_on",
]

PREVIEW_HISTORY = 200  # checkpoints searched for a change's previews (a report reads them)


@dataclass(frozen=True)
class ApprovedTemplate:
    """The template a change's reviewer approved: `payload` is exactly what `sha256` covers."""

    change_id: str
    sha256: str
    payload: TemplateReview
    parts: list[TemplatePart]
    template_tokens: int  # what proposing it cost


class ChangeWorkflow:
    """One compiled graph of the given nodes (planner, device gateway, …) over the checkpointer."""

    def __init__(self, *, checkpointer: BaseCheckpointSaver[Any], nodes: Nodes) -> None:
        """`nodes`: the graph's working nodes with their collaborators and settings (built by
        bot/wiring; workflow.nodes.change says what each is for)."""
        self._preview_locks = nodes.preview_locks
        self._planner = nodes.planner
        self._graph = build_graph(nodes, checkpointer)

    async def start(
        self,
        thread_id: str,
        *,
        change_id: str,
        text: str,
        requester: Requester,
        rollback_of: str | None = None,
        on_progress: StepProgress | None = None,
        scope: str = "",
    ) -> Step:
        """Run a new change in `thread_id` up to its first gate (or its end). `scope`: the
        channel/room asking, where template pins apply."""
        pending = await self._pending(thread_id)
        if pending is not None:
            raise GateError(
                f"change {pending.change_id} in this thread still waits for its "
                f"{pending.gate} review; decide it or cancel it before starting another"
            )
        state = initial_state(change_id, text, requester, rollback_of, scope)
        return await self._run(thread_id, state, on_progress, 0)

    async def resume(
        self,
        thread_id: str,
        gate: PendingGate,
        decision: GateDecision,
        on_progress: StepProgress | None = None,
    ) -> Step:
        """Answer `gate` — the pending gate, read and checked with `gate_problem` under the
        thread's lock — by its interrupt id; run to the next gate or the end."""
        if decision.get("choice") not in CHOICES:
            raise GateError(f"unknown choice {decision.get('choice')!r}; one of {CHOICES}")
        command: Command[str] = Command(resume={gate.interrupt_id: dict(decision)})
        return await self._run(thread_id, command, on_progress, gate.records_before)

    async def expire(self, thread_id: str, gate: PendingGate) -> Step:
        """End the pending `gate` as expired: nobody's choice is applied (the graph's own clock
        must agree that it expired, else the gate is shown again)."""
        command: Command[str] = Command(resume={gate.interrupt_id: GateExpiry(expired=True)})
        return await self._run(thread_id, command, None, gate.records_before)

    async def pending_gate(self, thread_id: str) -> PendingGate | None:
        """The gate waiting for a decision (even past `expires_at`), or None."""
        return await self._pending(thread_id)

    async def feedback_problem(self, thread_id: str, feedback: str) -> FeedbackProblem | None:
        """Why the planner could not act on `feedback` as a Modify of the pending template or
        params gate (workflow/results/feedback.py); None when it can, or cannot tell (an LLM)."""
        if not isinstance(self._planner, FeedbackReader):
            return None
        state = state_of(await self._graph.aget_state(_config(thread_id)))
        if state is None or state["rollback"]["restore"]:
            return None
        gate, template = state["gates"]["open"], state["template"]["proposal"]
        topology, asked = state["lab"]["topology"], state["request"]
        if gate is None or template is None or topology is None:
            return None
        if gate["gate"] not in ("template", "params"):
            return None
        shown = state["params"]["device_params"]  # what a Modify adds to or removes from
        request = PlanRequest(
            text=asked["text"],
            topology=topology,
            feedback=feedback,
            previous={"device_params": shown} if shown else None,
            scope=asked["scope"],
        )
        return await self._planner.feedback_problem(request, template, gate["gate"])

    async def outcome(self, thread_id: str) -> Finished | None:
        """How the last change in this thread ended, or None while it is pending or unknown."""
        snapshot = await self._graph.aget_state(_config(thread_id))
        return finished_of(snapshot)

    async def previews_of(self, thread_id: str, change_id: str) -> dict[str, DevicePreview]:
        """Per device, the lines and diff the params gate showed for `change_id` (the thread's
        checkpoints, newest first, at most PREVIEW_HISTORY of them); empty when none was shown."""
        config = _config(thread_id)
        async for snapshot in self._graph.aget_state_history(config, limit=PREVIEW_HISTORY):
            state = state_of(snapshot)
            if state and state["request"]["change_id"] == change_id and state["params"]["previews"]:
                return dict(state["params"]["previews"])
        return {}

    async def last_step(self, thread_id: str, change_id: str) -> Step | None:
        """Where `change_id` stands, with the lab it read: how it ended, else the gate it waits
        at (the thread's newest checkpoint of it, within PREVIEW_HISTORY); None when none."""
        config = _config(thread_id)
        async for snapshot in self._graph.aget_state_history(config, limit=PREVIEW_HISTORY):
            if (state := state_of(snapshot)) and state["request"]["change_id"] == change_id:
                return finished_of(snapshot) or pending_gate_of(snapshot)
        return None

    async def approved_template(self, thread_id: str) -> ApprovedTemplate | None:
        """The template approved in this thread's latest change, checked against the approved
        hash; None when no template was approved (or what is kept no longer matches it)."""
        state = state_of(await self._graph.aget_state(_config(thread_id)))
        if state is None:
            return None
        shown, template = state["template"]["shown"], state["template"]["proposal"]
        approved = state["gates"]["approved"].get("template")
        if not shown or not approved or template is None or content_sha256(shown) != approved:
            return None
        usage = state["planning"]["tokens"].get("template")
        return ApprovedTemplate(
            change_id=state["request"]["change_id"],
            sha256=approved,
            payload=shown,
            parts=proposal_parts(template),
            template_tokens=usage["total_tokens"] if usage else 0,
        )

    async def _run(
        self,
        thread_id: str,
        graph_input: Any,
        on_progress: StepProgress | None,
        records_before: int,
    ) -> Step:
        """Run to the next gate or the end: that step, with the push records made meanwhile
        (the change had `records_before` when the run began)."""
        config = _config(thread_id)
        context = StepContext(on_progress)  # the nodes hand it on (workflow.step_progress)
        await self._graph.ainvoke(graph_input, config, context=context, durability="sync")
        snapshot = await self._graph.aget_state(config)
        step = pending_gate_of(snapshot) or finished_of(snapshot)
        if step is None:
            raise GateError(
                f"the change in thread {thread_id} stopped without an outcome "
                f"(next: {', '.join(snapshot.next) or 'nothing'}); start it again"
            )
        if isinstance(step, Finished) and self._preview_locks is not None:
            await self._preview_locks.release_change(step.change_id)
        state = state_of(snapshot)
        made = state["push"]["records"][records_before:] if state else []
        return replace(step, pushes=tuple(made))

    async def _pending(self, thread_id: str) -> PendingGate | None:
        return pending_gate_of(await self._graph.aget_state(_config(thread_id)))


def _config(thread_id: str) -> RunnableConfig:
    return {"configurable": {"thread_id": thread_id}}
