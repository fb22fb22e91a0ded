"""The decision service: chat events in, workflow starts and resumes out, every step audited.

authorize → record (first decision wins, in storage) → resume by interrupt id, one resume of a
thread at a time → present the next step.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from adapters.chat import Actor, ChatAdapter, ChatEvent, Decision, Message, Request, ThreadRef
from base.errors import DecisionConflict, GateError, LabbotError
from base.vocabulary import Outcome, stamp, utc_now
from bot import messages, presenter
from bot.authorize import Authorizer
from bot.commands import Command, CommandError, parse_command
from bot.door import DoorLimits, refuse_size
from bot.metrics import Metrics, process_metrics
from bot.people import NoDirectory, People
from bot.policy import Policy
from bot.shutdown import PushesInFlight
from storage.audit import AuditStore
from storage.audit_records import Resolution, Vote
from storage.templates import TemplateStore
from workflow.api import (
    ChangeWorkflow,
    Finished,
    Gate,
    GateDecision,
    ParamsGate,
    PendingGate,
    RollbackGate,
    Step,
)
from workflow.hashing import lines_sha256
from workflow.model import PushProgress, StandardResponse
from workflow.state import Requester

log = logging.getLogger(__name__)

GATE_IDS_KEPT = 10_000  # gate message ids remembered for adapters that do not send them back
ThreadLock = Callable[[str], AbstractAsyncContextManager[Any]]
CommandHandler = Callable[["DecisionService", Request, Command], Any]


def new_change_id() -> str:
    return "chg-" + secrets.token_hex(4)


@dataclass
class DecisionService:
    workflow: ChangeWorkflow
    audit: AuditStore
    adapter: ChatAdapter
    policy: Policy
    thread_lock: ThreadLock
    commands: dict[str, CommandHandler] = field(default_factory=dict)
    clock: Callable[[], datetime] = utc_now
    metrics: Metrics = field(default_factory=process_metrics)
    templates: TemplateStore | None = None  # the team's template library (saves, uses)
    people: People | None = None  # facts about people and places (default: the policy alone)
    limits: DoorLimits = field(default_factory=DoorLimits)
    pushes: PushesInFlight = field(default_factory=PushesInFlight)  # for a stop (bot/shutdown.py)
    authorizer: Authorizer = field(init=False)
    # gate interrupt id -> platform message id, for adapters whose decisions do not carry it
    _gate_message_ids: OrderedDict[str, str] = field(default_factory=OrderedDict)

    def __post_init__(self) -> None:
        people = self.people or People(self.policy, NoDirectory())
        self.authorizer = Authorizer(self.policy, people, self.audit, self.limits)

    async def handle(self, event: ChatEvent) -> None:
        """Entry point for adapters. Never raises for a user's mistake: it answers in the thread."""
        with self.metrics.handling(event):
            try:
                if isinstance(event, Decision):
                    self.metrics.decision(event.choice, await self._decide(event))
                else:
                    await self._request(event)
            except LabbotError as exc:
                self.metrics.failure("error")
                await self.say(event.thread, Message(str(exc), level="error"))
            except Exception:  # our fault or a dependency's: tell the thread, keep serving
                self.metrics.failure("unexpected")
                log.exception("handling %s in %s failed", type(event).__name__, event.thread.key)
                await self.say(event.thread, Message(messages.UNEXPECTED, level="error"))

    async def say(self, thread: ThreadRef, message: Message) -> str:
        return await self.adapter.post(thread, message)

    async def may_curate(self, request: Request) -> bool:
        """Saving and pinning templates change what later changes use: approvers only. A refusal
        is told to the person and recorded."""
        reason = await self.authorizer.refuse_curation(request)
        if reason:
            await self._refuse(
                request.actor, request.thread, messages.REFUSED.format(reason=reason)
            )
        return reason is None

    async def tell(self, thread: ThreadRef, actor: Actor, text: str) -> None:
        """A message only `actor` sees, where the platform allows it."""
        await self.say(thread, Message(text, ephemeral_to=actor.id, level="warning"))

    # --- requests -----------------------------------------------------------------------------

    async def _request(self, request: Request) -> None:
        too_long = refuse_size(self.limits, request.text)
        if too_long:  # neither stored nor echoed: the refusal names only the size
            await self._refuse(request.actor, request.thread, too_long, gate="request")
            return
        try:
            command = parse_command(request.text)
        except CommandError as exc:
            await self.say(request.thread, Message(str(exc), level="error"))
            return
        if command is not None:
            await self._command(request, command)
            return
        await self.start_change(request, request.text)

    async def _command(self, request: Request, command: Command) -> None:
        handler = self.commands.get(command.name)
        if handler is None:
            await self.say(request.thread, Message(messages.HELP))
            return
        try:
            await handler(self, request, command)
        except CommandError as exc:
            await self.say(request.thread, Message(str(exc), level="error"))

    async def start_change(
        self, request: Request, text: str, *, rollback_of: str | None = None
    ) -> None:
        thread = request.thread
        reason = await self.authorizer.refuse_request(request, self.clock())
        if reason:
            text = messages.REFUSED.format(reason=reason)
            await self._refuse(request.actor, thread, text, change_id="", gate="request")
            return
        async with self.thread_lock(thread.key):  # one start per thread at a time
            await self._start_locked(request, text, rollback_of)

    async def _start_locked(self, request: Request, text: str, rollback_of: str | None) -> None:
        thread = request.thread
        pending = await self.workflow.pending_gate(thread.key)
        if pending is not None:
            await self.say(
                thread, Message(messages.PENDING_IN_THREAD.format(change_id=pending.change_id))
            )
            return
        change_id = new_change_id()
        await self.audit.record_change(
            change_id,
            thread_key=thread.key,
            platform=thread.platform,
            channel=thread.channel,
            requester_id=request.actor.id,
            requester_name=request.actor.name,
            text=text,
            kind="rollback" if rollback_of else "change",
            rollback_of=rollback_of,
        )
        note = (
            messages.ROLLBACK_PLANNING.format(change_id=rollback_of)
            if rollback_of
            else messages.PLANNING.format(text=text)
        )
        await self.say(thread, Message(note))
        step = await self.workflow.start(
            thread.key,
            change_id=change_id,
            text=text,
            requester=Requester(id=request.actor.id, name=request.actor.name),
            rollback_of=rollback_of,
            on_progress=self._progress_sink(thread, change_id),
            scope=f"{thread.platform}:{thread.channel}",
        )
        await self._present(thread, step, pushed_lines={})

    # --- decisions ----------------------------------------------------------------------------

    async def _decide(self, decision: Decision) -> Outcome:
        """Authorize, record, resume; returns the outcome (`bot.metrics.OUTCOMES`)."""
        thread, actor = decision.thread, decision.actor
        gate = await self.workflow.pending_gate(thread.key)
        if gate is None or gate.interrupt_id != decision.interrupt_id:
            return await self._refuse_stale(decision)
        if gate.sha256 != decision.content_sha256:
            await self._refuse(actor, thread, messages.CHANGED_GATE, gate=gate)
            return "changed"
        if decision.untrusted_because:  # the platform cannot vouch for who sent it
            text = messages.REFUSED.format(reason=decision.untrusted_because)
            await self._refuse(actor, thread, text, gate=gate)
            return "refused"
        change = await self.audit.change_summary(gate.change_id)
        requester_id = change.requester_id if change else ""
        reason = await self.authorizer.refuse_decision(decision, gate, change)
        if reason:
            await self._refuse(actor, thread, reason, gate=gate)
            return "refused"
        if datetime.fromisoformat(gate.expires_at) <= self.clock():
            await self._expire(decision, gate)
            return "expired"
        async with self.thread_lock(thread.key):  # record and resume as one step per thread
            outcome = await self._record(decision, gate, requester_id)
            if outcome == "resolved":
                await self._mark_decided(gate, decision)
                await self._resume_locked(decision, gate)
        return outcome

    async def _record(self, decision: Decision, gate: PendingGate, requester_id: str) -> Outcome:
        """Insert the decision: "resolved" (then resume), "vote" or "already_decided"."""
        thread, actor = decision.thread, decision.actor
        settles = await self.authorizer.settles(decision, gate, requester_id)
        try:
            result = await self.audit.decide(
                change_id=gate.change_id,
                gate=gate.gate,
                interrupt_id=gate.interrupt_id,
                choice=decision.choice,
                actor_id=actor.id,
                actor_name=actor.name,
                platform=thread.platform,
                channel=thread.channel,
                content_sha256=decision.content_sha256,
                feedback=decision.feedback,
                settles=settles,
            )
        except DecisionConflict as conflict:
            await self._refuse(actor, thread, self._conflict_text(conflict), gate=gate)
            if isinstance(conflict.existing, Resolution):
                await self._resume_orphan(thread, gate, conflict.existing)
            return "already_decided"
        if not result.resolved:
            await self._say_vote(decision, gate, requester_id, result.approvals)
        return "resolved" if result.resolved else "vote"

    async def _say_vote(
        self, decision: Decision, gate: PendingGate, requester_id: str, approvals: tuple[Vote, ...]
    ) -> None:
        approvers = tuple(v.actor_id for v in approvals)
        missing = await self.authorizer.waiting_for(
            gate, approvers, requester_id, decision.thread.channel
        )
        text = messages.VOTE_RECORDED.format(
            actor=decision.actor.name,
            count=len(approvals),
            required=self.policy.required_approvals(gate.gate),
            missing=missing,
        )
        await self.say(decision.thread, Message(text))

    def _conflict_text(self, conflict: DecisionConflict) -> str:
        existing = conflict.existing
        if not isinstance(existing, Resolution):
            return messages.ALREADY_VOTED
        return already_decided(existing)

    async def _expire(self, decision: Decision, gate: PendingGate) -> None:
        """End an expired gate. Nobody's choice is applied: the workflow is resumed with a
        cancel, which it records as expired (its own clock says the gate expired)."""
        await self._refuse(
            decision.actor,
            decision.thread,
            messages.EXPIRED_GATE.format(at=gate.expires_at),
            gate=gate,
        )
        ending = Decision(
            decision.thread,
            decision.actor,
            gate.interrupt_id,
            "cancel",
            gate.sha256,
            message_id=decision.message_id,
        )
        footer = messages.EXPIRED_FOOTER.format(at=stamp(datetime.fromisoformat(gate.expires_at)))
        async with self.thread_lock(decision.thread.key):
            await self._mark_decided(gate, ending, footer)
            await self._resume_locked(ending, gate)

    async def _resume_orphan(
        self, thread: ThreadRef, gate: PendingGate, resolution: Resolution
    ) -> None:
        """Called holding the thread lock, under which decisions are recorded AND resumed: a gate
        settled in storage but still pending was recorded by a process that died before
        resuming. Resume it with the recorded decision."""
        pending = await self.workflow.pending_gate(thread.key)
        if pending is None or pending.interrupt_id != gate.interrupt_id:
            return
        log.warning("resuming %s: its decision was recorded but never resumed", gate.change_id)
        decision = Decision(
            thread,
            Actor(resolution.actor_id, resolution.actor_name),
            resolution.interrupt_id,
            resolution.choice,
            resolution.content_sha256,
            resolution.feedback,
        )
        await self._resume_locked(decision, gate)

    async def _resume_locked(self, decision: Decision, gate: PendingGate) -> None:
        thread = decision.thread
        # what the resumed step pushes: the params gate's lines, or the rollback gate's; keeping
        # a change at the rollback gate pushes nothing (its push was recorded at that gate)
        pushing = gate.gate == "params" or (
            gate.gate == "rollback" and decision.choice == "approve"
        )
        pushed_lines = _lines_by_device(gate) if pushing else {}
        gate_decision: GateDecision = {
            "choice": decision.choice,
            "sha256": decision.content_sha256,
            "actor_id": decision.actor.id,
            "actor_name": decision.actor.name,
            "feedback": decision.feedback,
        }
        if pushed_lines and decision.choice == "approve":
            self.pushes.begin(gate.change_id, thread, pushed_lines)
        try:
            step = await self.workflow.resume(
                thread.key,
                gate.interrupt_id,
                gate_decision,
                on_progress=self._progress_sink(thread, gate.change_id),
            )
        except GateError as exc:
            await self._refuse(decision.actor, thread, str(exc), gate=gate)
        else:
            await self._present(thread, step, pushed_lines=pushed_lines, record=pushing)
        finally:
            self.pushes.end(gate.change_id)  # its results are recorded (or it never ran)

    async def _mark_decided(self, gate: PendingGate, decision: Decision, footer: str = "") -> None:
        """Replace the gate's buttons by who decided (any replica can: the gate is in storage)."""
        footer = footer or presenter.decided_footer(
            decision.choice, decision.actor.shown, stamp(self.clock()), decision.feedback
        )
        mentions = (decision.actor.mention,) if decision.actor.mention else ()
        message_id = decision.message_id or self._gate_message_ids.pop(gate.interrupt_id, "")
        if not message_id:
            await self.say(decision.thread, Message(footer, mentions=mentions))
            return
        await self.adapter.update(
            decision.thread,
            message_id,
            presenter.decided(presenter.present_gate(gate), footer, mentions),
        )

    # --- presenting steps ---------------------------------------------------------------------

    async def present_step(self, thread: ThreadRef, step: Step) -> None:
        await self._present(thread, step, pushed_lines={})

    async def _present(
        self,
        thread: ThreadRef,
        step: Step,
        *,
        pushed_lines: dict[str, list[str]],
        record: bool = True,
    ) -> None:
        """Show the next step. `record`: the pushes in its result are recorded (a rollback gate
        records the push whose post-checks failed; the change then ends without pushing again
        when kept)."""
        if isinstance(step, Gate):
            if isinstance(step, RollbackGate):
                await self._record_pushes(step.change_id, step.payload["push"], pushed_lines)
            message_id = await self.say(thread, presenter.present_gate(step))
            self._gate_message_ids[step.interrupt_id] = message_id
            while len(self._gate_message_ids) > GATE_IDS_KEPT:
                self._gate_message_ids.popitem(last=False)
            return
        await self._finish(thread, step, pushed_lines if record else None)

    async def _record_pushes(
        self, change_id: str, result: StandardResponse, pushed_lines: dict[str, list[str]]
    ) -> None:
        for item in result["data"]:
            self.metrics.push(item["status"])
            lines = pushed_lines.get(item["name"], [])
            await self.audit.record_push(
                change_id=change_id,
                device=item["name"],
                lines_sha256=lines_sha256(lines),
                status=item["status"],
                detail=item.get("error") or f"{len(lines)} line(s) pushed and verified",
            )

    async def _finish(
        self, thread: ThreadRef, finished: Finished, pushed_lines: dict[str, list[str]] | None
    ) -> None:
        """`pushed_lines` None: the result's pushes are already recorded."""
        if finished.result is not None and pushed_lines is not None:
            await self._record_pushes(finished.change_id, finished.result, pushed_lines)
        await self.audit.record_change_event(
            change_id=finished.change_id,
            status=finished.status,
            detail=finished.message,
            tokens=finished.tokens,
        )
        if self.templates is not None and finished.templates:
            await self.templates.record_use(finished.change_id, finished.templates, finished.status)
        self.metrics.change_finished(finished.status)
        await self.say(
            thread,
            presenter.present_result(finished),
        )

    def _progress_sink(self, thread: ThreadRef, change_id: str) -> Callable[[PushProgress], Any]:
        progress: dict[str, PushProgress] = {}
        posted: list[str] = []
        started = time.perf_counter()

        async def on_progress(event: PushProgress) -> None:
            nonlocal started
            if not progress:
                started = time.perf_counter()
            elif event.stage != "started" and event.done == event.total:
                self.metrics.push_duration(time.perf_counter() - started)
            progress[event.device] = event
            self.pushes.progress(change_id, event)
            message = presenter.present_progress(change_id, progress)
            if posted:
                await self.adapter.update(thread, posted[0], message)
            else:
                posted.append(await self.say(thread, message))

        return on_progress

    # --- refusals -----------------------------------------------------------------------------

    async def _refuse_stale(self, decision: Decision) -> Outcome:
        resolution = await self.audit.resolution(decision.interrupt_id)
        outcome: Outcome
        if resolution is not None:
            text = already_decided(resolution)
            change_id, outcome = resolution.change_id, "already_decided"
        else:
            text, change_id, outcome = messages.STALE_GATE, "", "stale"
        await self._refuse(
            decision.actor,
            decision.thread,
            text,
            change_id=change_id,
            gate="",
            interrupt_id=decision.interrupt_id,
        )
        return outcome

    async def _refuse(
        self,
        actor: Actor,
        thread: ThreadRef,
        text: str,
        *,
        gate: PendingGate | str | None = None,
        change_id: str = "",
        interrupt_id: str = "",
    ) -> None:
        gate_name: str = ""
        if isinstance(gate, Gate):
            change_id, interrupt_id, gate_name = gate.change_id, gate.interrupt_id, gate.gate
        elif gate:
            gate_name = gate
        self.metrics.refusal(gate_name)
        await self.audit.record_refusal(
            change_id=change_id or None,
            interrupt_id=interrupt_id or None,
            gate=gate_name or None,
            actor_id=actor.id,
            actor_name=actor.name,
            platform=thread.platform,
            channel=thread.channel,
            reason=text,
        )
        await self.tell(thread, actor, text)


def already_decided(resolution: Resolution) -> str:
    return messages.ALREADY_DECIDED.format(
        choice=messages.CHOICE_PAST[resolution.choice],
        actor=resolution.actor_name,
        at=stamp(resolution.at),
    )


def _lines_by_device(gate: PendingGate) -> dict[str, list[str]]:
    """What a push approved at this gate sends, per device (nothing at the template gate)."""
    if isinstance(gate, ParamsGate | RollbackGate):
        return {name: list(device["lines"]) for name, device in gate.payload["devices"].items()}
    return {}
