"""The decision service: chat events in; one job — authorize → record → resume.

Requests (a change to start, a command) go to the request desk (bot.decisions.requests). A
decision is handled under the thread's lock (storage's, the one per-thread lock): the pending gate
is read and checked once (`workflow.api.gate_problem`: the one rule), the decision authorized
(bot.policy.authorize) and recorded in storage (first decision wins, across replicas). What the
click comes to is one value (bot.decisions.click_answers: refused, a vote, a Modify not
understood, expired, or that gate resumed by its interrupt id), handed to the reporter once
(bot.decisions.reporter), which shows and books it. A gate settled is resumed here, in the
workflow, with the reporter's progress sink; the step it ran to goes to the reporter. An expired
gate is ended as expired, in nobody's name.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime

from adapters.chat import (
    ChatEvent,
    Decision,
    HomeOpened,
    Message,
    ThreadRef,
)
from adapters.user_ids import canonical_user_id
from base.errors import DecisionConflict, LabbotError
from base.vocabulary import GateProblem, Outcome, utc_now
from bot import messages
from bot.decisions.click_answers import (
    ClickAnswer,
    Expired,
    ModifyNotUnderstood,
    Refused,
    Resume,
    Voted,
)
from bot.decisions.metrics import Metrics, process_metrics
from bot.decisions.reporter import ChangeReporter
from bot.decisions.requests import RequestDesk
from bot.policy.authorize import Authorizer
from bot.policy.rules import Policy
from bot.ports import ChangeRunner, ThreadLock
from bot.views.decided import already_decided
from bot.views.home_board import HomeBoard
from storage.audit_records import Ballot, Resolution, Vote
from storage.db import is_unreachable
from storage.ports import DecisionRecords
from workflow.api import GateDecision, PendingGate, gate_problem

__all__ = ["DecisionService"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class DecisionService:
    """Given its collaborators (bot/wiring.decision_service builds them)."""

    workflow: ChangeRunner
    audit: DecisionRecords
    policy: Policy
    thread_lock: ThreadLock
    authorizer: Authorizer  # who may request, decide, curate
    reporter: ChangeReporter  # what each step shows in the thread and books
    requests: RequestDesk  # change requests and commands
    home_board: HomeBoard | None = None  # the per-person home pages (Slack App Home)
    clock: Callable[[], datetime] = utc_now
    metrics: Metrics = field(default_factory=process_metrics)

    async def handle(self, event: ChatEvent) -> None:
        """Entry point for adapters. Never raises for a user's mistake: it answers in the thread.
        Whoever acts is known by their id as the platform compares ids (one person, one id)."""
        event = replace(event, actor=replace(event.actor, id=canonical_user_id(event.actor.id)))
        with self.metrics.handling(event):
            try:
                if isinstance(event, Decision):
                    self.metrics.decision(event.choice, await self._decide(event))
                elif isinstance(event, HomeOpened):
                    if self.home_board is not None:
                        await self.home_board.opened(event.actor)
                else:
                    await self.requests.handle(event, self.handle)
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

    # --- decisions ----------------------------------------------------------------------------

    async def _decide(self, decision: Decision) -> Outcome:
        """Read the pending gate and check the click against it, then decide what the click
        comes to (bot/decisions/click_answers.py) and hand that to the reporter, as one step of the
        thread (under its lock, so the gate read is the one resumed); a settled gate is resumed
        then. Returns what became of the click. A click that fails the check is answered after
        the lock is given back (nothing of the thread changes)."""
        async with self.thread_lock(decision.thread.key):
            gate = await self.workflow.pending_gate(decision.thread.key)
            problem = gate_problem(gate, decision.interrupt_id, decision.content_sha256)
            if gate is not None and problem is None:
                answer = await self._at_gate(decision, gate)
                outcome = await self.reporter.answer_click(decision, answer)
                if isinstance(answer, Resume):
                    await self._resume(decision.thread, answer)
                return outcome
        answer = await self._not_at_gate(decision, gate, problem or "stale")
        return await self.reporter.answer_click(decision, answer)

    async def _resume(self, thread: ThreadRef, resume: Resume) -> None:
        """Still under the lock, the gate closed in the thread: answer it in the workflow, its
        progress shown as it comes (the reporter's sink), then hand the step it reached to the
        reporter, which shows and books it."""
        with self.reporter.running(thread, resume.gate, resume.choice) as on_progress:
            step = await self.workflow.resume(thread.key, resume.gate, resume.decision, on_progress)
            await self.reporter.present(thread, step)

    async def _at_gate(self, decision: Decision, gate: PendingGate) -> ClickAnswer:
        """The click answers `gate`, the pending one, exactly as shown."""
        change = await self.audit.change_summary(gate.change_id)
        requester_id = change.requester_id if change else ""
        refusal = await self.authorizer.refuse_decision(decision, gate, change)
        if refusal:
            return Refused(refusal, "refused", gate=gate)
        if decision.choice == "modify":
            feedback = decision.feedback or ""
            problem = await self.workflow.feedback_problem(decision.thread.key, feedback)
            if problem is not None:
                return ModifyNotUnderstood(gate.change_id, feedback, problem)
        if datetime.fromisoformat(gate.expires_at) <= self.clock():
            # ended as expired: nobody's choice is applied or recorded; the click is told so
            return Expired(gate, await self.workflow.expire(decision.thread.key, gate))
        return await self._record(decision, gate, requester_id)

    async def _record(
        self, decision: Decision, gate: PendingGate, requester_id: str
    ) -> ClickAnswer:
        """Insert the decision: resumed when it settles the gate, else a vote counted; a gate
        already settled is refused (and resumed when its recorder stopped before resuming)."""
        settles = await self.authorizer.settles(decision, gate, requester_id)
        try:
            result = await self.audit.decide(_ballot(decision, gate), settles)
        except DecisionConflict as conflict:
            settled = conflict.existing if isinstance(conflict.existing, Resolution) else None
            if settled is None:
                return Refused(messages.ALREADY_VOTED, "already_decided", gate=gate)
            return _resume_orphan(gate, settled)
        if result.resolved:
            return Resume(gate, _gate_decision(decision))
        return await self._vote(decision, gate, requester_id, result.approvals)

    async def _vote(
        self, decision: Decision, gate: PendingGate, requester_id: str, approvals: tuple[Vote, ...]
    ) -> Voted:
        approvers = tuple(v.actor_id for v in approvals)
        missing = await self.authorizer.waiting_for(
            gate, approvers, requester_id, decision.thread.channel
        )
        return Voted(len(approvals), self.policy.required_approvals(gate.gate), missing)

    async def _not_at_gate(
        self, decision: Decision, gate: PendingGate | None, problem: GateProblem
    ) -> Refused:
        """A click on a gate that is not the pending one, or whose content changed: told who
        settled it when storage knows, else why the button no longer works. A typed reply to
        an earlier step while a newer one waits is told the preview changed."""
        if problem == "changed" and gate is not None:
            return Refused(messages.GATE_PROBLEM[problem], "changed", gate=gate)
        if decision.typed and gate is not None:  # typed for an earlier step than the pending one
            return Refused(
                messages.PREVIEW_CHANGED,
                "stale",
                change_id=gate.change_id,
                interrupt_id=decision.interrupt_id,
            )
        resolution = await self.audit.resolution(decision.interrupt_id)
        if resolution is None:
            return Refused(
                messages.GATE_PROBLEM["stale"], "stale", interrupt_id=decision.interrupt_id
            )
        return Refused(
            already_decided(resolution),
            "already_decided",
            gate_name=resolution.gate,  # the gate the click was for
            change_id=resolution.change_id,
            interrupt_id=decision.interrupt_id,
        )


def _resume_orphan(gate: PendingGate, settled: Resolution) -> Resume:
    """Called holding the thread lock, under which decisions are recorded AND resumed: `gate`,
    read under it, is still pending though settled in storage — recorded by a process that
    died before resuming. Resume it with the recorded decision; the click is told who
    settled it."""
    log.warning("resuming %s: its decision was recorded but never resumed", gate.change_id)
    recorded = GateDecision(
        choice=settled.choice,
        sha256=settled.content_sha256,
        actor_id=settled.actor_id,
        actor_name=settled.actor_name,
        feedback=settled.feedback,
    )
    return Resume(gate, recorded, late_notice=already_decided(settled))


def _gate_decision(decision: Decision) -> GateDecision:
    """What the workflow is answered with: the choice on what the gate showed, and who."""
    return GateDecision(
        choice=decision.choice,
        sha256=decision.content_sha256,
        actor_id=decision.actor.id,
        actor_name=decision.actor.name,
        feedback=decision.feedback,
    )


def _ballot(decision: Decision, gate: PendingGate) -> Ballot:
    """What storage records of a click on `gate`: the gate, the choice on what it showed, who
    and where."""
    thread, actor = decision.thread, decision.actor
    return Ballot(
        change_id=gate.change_id,
        gate=gate.gate,
        interrupt_id=gate.interrupt_id,
        choice=decision.choice,
        content_sha256=decision.content_sha256,
        feedback=decision.feedback,
        actor_id=actor.id,
        actor_name=actor.name,
        platform=thread.platform,
        channel=thread.channel,
    )
