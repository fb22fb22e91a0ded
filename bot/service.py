"""The decision service: chat events in; one job — authorize → record → resume.

A request starts a change (or runs a command, which gets a narrow `CommandContext`). A decision
is checked against the pending gate (`workflow.api.gate_problem`: the one rule), authorized
(bot.authorize), recorded in storage (first decision wins, across replicas) and the workflow
resumed by interrupt id; recording and resuming happen under the thread's lock (storage's, the
one per-thread lock). An expired gate is ended as expired, in nobody's name. What comes of each
step is shown and booked by the reporter (bot.reporter).
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from typing import Any

from adapters.chat import (
    Actor,
    ChatAdapter,
    ChatEvent,
    Decision,
    HomeOpened,
    HomePublisher,
    Message,
    Request,
    ThreadRef,
)
from base.errors import DecisionConflict, GateRefused, LabbotError
from base.vocabulary import GateProblem, Outcome, stamp, utc_now
from bot import messages
from bot.authorize import Authorizer
from bot.commands.context import CommandContext, CommandHandler
from bot.commands.parsing import Command, CommandError, parse_command
from bot.door import DoorLimits, refuse_size
from bot.home import HomeBoard
from bot.metrics import Metrics, process_metrics
from bot.people import NoDirectory, People
from bot.policy import Policy
from bot.reporter import ChangeReporter, already_decided
from bot.shutdown import PushesInFlight
from bot.topology_view import LabPictures
from storage.audit import AuditStore
from storage.audit_records import Resolution, Vote
from storage.db import is_unreachable
from storage.templates import TemplateStore
from workflow.api import (
    ChangeWorkflow,
    GateDecision,
    ParamsGate,
    PendingGate,
    RollbackGate,
    gate_problem,
)
from workflow.state import Requester

log = logging.getLogger(__name__)

ThreadLock = Callable[[str], AbstractAsyncContextManager[Any]]


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
    pictures: LabPictures | None = None  # topology pictures in the thread (bot.topology_view)
    home: HomePublisher | None = None  # the platform's per-person home page (Slack App Home)
    home_board: HomeBoard | None = field(init=False, default=None)
    authorizer: Authorizer = field(init=False)
    reporter: ChangeReporter = field(init=False)

    def __post_init__(self) -> None:
        people = self.people or People(self.policy, NoDirectory())
        self.authorizer = Authorizer(self.policy, people, self.audit, self.limits)
        self.reporter = ChangeReporter(
            self.adapter,
            self.audit,
            self.metrics,
            self.templates,
            self.clock,
            self.pushes,
            pictures=self.pictures,
        )
        if self.home is not None:
            self.home_board = HomeBoard(
                self.home,
                self.adapter.platform,
                self.workflow,
                self.audit,
                self.authorizer,
                self.clock,
            )
            self.reporter.on_gates_changed = self.home_board.refresh

    async def handle(self, event: ChatEvent) -> None:
        """Entry point for adapters. Never raises for a user's mistake: it answers in the thread."""
        with self.metrics.handling(event):
            try:
                if isinstance(event, Decision):
                    self.metrics.decision(event.choice, await self._decide(event))
                elif isinstance(event, HomeOpened):
                    if self.home_board is not None:
                        await self.home_board.opened(event.actor)
                else:
                    await self._request(event)
            except LabbotError as exc:
                self.metrics.failure("error")
                await self.reporter.say(event.thread, Message(str(exc), level="error"))
            except Exception as exc:  # our fault or a dependency's: tell the thread, keep serving
                await self._fault(event, exc)

    async def _fault(self, event: ChatEvent, exc: Exception) -> None:
        """One line in the thread. An unreachable database stopped the step before anything
        was decided (a decision is recorded before its resume, a push only follows a resume)."""
        if is_unreachable(exc):
            self.metrics.failure("storage")
            log.warning("handling %s: the database is unreachable: %s", event.thread.key, exc)
            await self.reporter.say(event.thread, Message(messages.DATABASE_DOWN, level="error"))
            return
        self.metrics.failure("unexpected")
        log.exception("handling %s in %s failed", type(event).__name__, event.thread.key)
        await self.reporter.say(event.thread, Message(messages.UNEXPECTED, level="error"))

    # --- requests -----------------------------------------------------------------------------

    async def _request(self, request: Request) -> None:
        too_long = refuse_size(self.limits, request.text)
        if too_long:  # neither stored nor echoed: the refusal names only the size
            await self.reporter.refuse(request.actor, request.thread, too_long, about="request")
            return
        try:
            command = parse_command(request.text)
            if command is None:
                await self.start_change(request, request.text)
            else:
                await self._command(request, command)
        except CommandError as exc:
            await self.reporter.say(request.thread, Message(str(exc), level="error"))

    async def _command(self, request: Request, command: Command) -> None:
        handler = self.commands.get(command.name)
        if handler is None:
            await self.reporter.say(request.thread, Message(messages.HELP))
            return
        await handler(self._context(request, command))

    def _context(self, request: Request, command: Command) -> CommandContext:
        """What a command may do: speak in its thread, read the thread's change, and start or
        decide one through the same doors as everyone else."""
        return CommandContext(
            request=request,
            command=command,
            say=partial(self.reporter.say, request.thread),
            show=partial(self.reporter.present, request.thread),
            refuse=partial(self.reporter.refuse, request.actor, request.thread, about=command.name),
            may_curate=partial(self._may_curate, request),
            start_change=partial(self.start_change, request),
            decide=self.handle,
            changes=self.workflow,
            audit=self.audit,
            authorizer=self.authorizer,
            clock=self.clock,
            templates=self.templates,
            pictures=self.pictures,
        )

    async def _may_curate(self, request: Request) -> bool:
        """Saving and pinning templates change what later changes use: approvers only. A refusal
        is told to the person and recorded."""
        reason = await self.authorizer.refuse_curation(request)
        return not await self._refused(request.actor, request.thread, reason)

    async def start_change(
        self, request: Request, text: str, rollback_of: str | None = None
    ) -> None:
        thread = request.thread
        reason = await self.authorizer.refuse_request(request, self.clock())
        if await self._refused(request.actor, thread, reason, about="request"):
            return
        async with self.thread_lock(thread.key):  # one start per thread at a time
            await self._start_locked(request, text, rollback_of)

    async def _start_locked(self, request: Request, text: str, rollback_of: str | None) -> None:
        thread = request.thread
        pending = await self.workflow.pending_gate(thread.key)
        if pending is not None:
            busy = messages.PENDING_IN_THREAD.format(change_id=pending.change_id)
            await self.reporter.say(thread, Message(busy))
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
        note_id = await self.reporter.say(thread, Message(note))
        step = await self.workflow.start(
            thread.key,
            change_id=change_id,
            text=text,
            requester=Requester(id=request.actor.id, name=request.actor.name),
            rollback_of=rollback_of,
            on_progress=self.reporter.progress(thread, change_id, working=(note_id, note)),
            scope=f"{thread.platform}:{thread.channel}",
        )
        await self.reporter.present(thread, step)

    # --- decisions ----------------------------------------------------------------------------

    async def _decide(self, decision: Decision) -> Outcome:
        """Check, authorize, record, resume; returns what became of the click."""
        thread, actor = decision.thread, decision.actor
        gate = await self.workflow.pending_gate(thread.key)
        problem = gate_problem(gate, decision.interrupt_id, decision.content_sha256)
        if gate is None or problem is not None:
            return await self._refuse_problem(decision, gate, problem or "stale")
        change = await self.audit.change_summary(gate.change_id)
        requester_id = change.requester_id if change else ""
        reason = await self.authorizer.refuse_decision(decision, gate, change)
        if await self._refused(actor, thread, reason, gate=gate):
            return "refused"
        if datetime.fromisoformat(gate.expires_at) <= self.clock():
            await self._expire(decision, gate)
            return "expired"
        async with self.thread_lock(thread.key):  # record and resume as one step per thread
            outcome = await self._record(decision, gate, requester_id)
            if outcome == "resolved":
                await self.reporter.mark_decided(gate, decision)
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
            settled = conflict.existing if isinstance(conflict.existing, Resolution) else None
            text = already_decided(settled) if settled else messages.ALREADY_VOTED
            await self.reporter.refuse(actor, thread, text, gate=gate)
            if settled is not None:
                await self._resume_orphan(thread, gate, settled)
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
        await self.reporter.say(decision.thread, Message(text))

    async def _expire(self, decision: Decision, gate: PendingGate) -> None:
        """End an expired gate as expired: nobody's choice is applied or recorded; the click
        that found it expired is told so (and the refusal recorded)."""
        expired_at = stamp(datetime.fromisoformat(gate.expires_at))
        text = messages.EXPIRED_GATE.format(at=expired_at)
        await self.reporter.refuse(decision.actor, decision.thread, text, gate=gate)
        async with self.thread_lock(decision.thread.key):
            try:
                step = await self.workflow.expire(decision.thread.key, gate.interrupt_id)
            except GateRefused:  # another click ended it meanwhile
                return
            await self.reporter.mark_expired(gate, decision)
            await self.reporter.present(decision.thread, step)

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
        resumed = GateDecision(
            choice=decision.choice,
            sha256=decision.content_sha256,
            actor_id=decision.actor.id,
            actor_name=decision.actor.name,
            feedback=decision.feedback,
        )
        # what the resumed step pushes: the params gate's lines, or the rollback gate's; keeping
        # a change at the rollback gate pushes nothing (its push was recorded at that gate)
        pushing = isinstance(gate, ParamsGate) or (
            isinstance(gate, RollbackGate) and decision.choice == "approve"
        )
        lines = _lines_by_device(gate) if isinstance(gate, ParamsGate | RollbackGate) else {}
        lines = lines if pushing else {}
        on_progress = self.reporter.progress(thread, gate.change_id)
        running = lines if decision.choice == "approve" else {}
        with self.reporter.pushing(gate.change_id, thread, running):
            try:
                step = await self.workflow.resume(
                    thread.key, gate.interrupt_id, resumed, on_progress
                )
            except GateRefused as refused:
                await self._refuse_problem(decision, gate, refused.problem)
                return
            await self.reporter.present(thread, step, lines, record=pushing)

    async def _refused(
        self,
        actor: Actor,
        thread: ThreadRef,
        refusal: str | None,
        *,
        gate: PendingGate | None = None,
        about: str = "",
    ) -> bool:
        """The one refusal path of requests, commands and decisions: a refusal (the sentence
        the authorizer gave) is told to the person and recorded; True when there was one."""
        if refusal:
            await self.reporter.refuse(actor, thread, refusal, gate=gate, about=about)
        return bool(refusal)

    async def _refuse_problem(
        self, decision: Decision, gate: PendingGate | None, problem: GateProblem
    ) -> Outcome:
        """A click on a gate that is not the pending one, or whose content changed: told who
        settled it when storage knows, else why the button no longer works."""
        actor, thread = decision.actor, decision.thread
        if problem == "changed" and gate is not None:
            await self.reporter.refuse(actor, thread, messages.GATE_PROBLEM[problem], gate=gate)
            return "changed"
        resolution = await self.audit.resolution(decision.interrupt_id)
        text = already_decided(resolution) if resolution else messages.GATE_PROBLEM["stale"]
        await self.reporter.refuse(
            actor,
            thread,
            text,
            change_id=resolution.change_id if resolution else "",
            interrupt_id=decision.interrupt_id,
        )
        return "already_decided" if resolution else "stale"


def _lines_by_device(gate: ParamsGate | RollbackGate) -> dict[str, list[str]]:
    """What a push approved at this gate sends, per device."""
    return {name: list(device["lines"]) for name, device in gate.payload["devices"].items()}
