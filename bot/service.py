"""The decision service: chat events in; one job — authorize → record → resume.

Requests (a change to start, a command) go to the request desk (bot.requests). A decision
is handled under the thread's lock (storage's, the one per-thread lock): the pending gate is read
and checked once (`workflow.api.gate_problem`: the one rule), the decision authorized
(bot.authorize), recorded in storage (first decision wins, across replicas) and that gate
resumed by its interrupt id. An expired gate is ended as expired, in nobody's name. What comes
of each step, its pushes included, is shown and booked by the reporter (bot.reporter).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime

from adapters.chat import (
    Actor,
    ChatEvent,
    Decision,
    HomeOpened,
    Message,
    ThreadRef,
    canonical_user_id,
)
from base.errors import DecisionConflict, LabbotError
from base.masking import SecretMask
from base.vocabulary import GateProblem, Outcome, utc_now
from bot import messages, presenter
from bot.authorize import Authorizer
from bot.home_board import HomeBoard
from bot.metrics import Metrics, process_metrics
from bot.policy_rules import Policy
from bot.ports import ChangeRunner, ThreadLock
from bot.reporter import ChangeReporter, already_decided
from bot.requests import RequestDesk
from storage.audit_records import Ballot, Resolution, Vote
from storage.db import is_unreachable
from storage.ports import DecisionRecords
from workflow.api import GateDecision, PendingGate, gate_problem

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
    mask: SecretMask  # secret values as shown
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
        """Read the pending gate and check the click against it, authorize, record, resume, as
        one step of the thread (under its lock, so the gate read is the one resumed); returns
        what became of the click. A click that fails the check is answered after the lock is
        given back (nothing of the thread changes)."""
        async with self.thread_lock(decision.thread.key):
            gate = await self.workflow.pending_gate(decision.thread.key)
            problem = gate_problem(gate, decision.interrupt_id, decision.content_sha256)
            if gate is not None and problem is None:
                return await self._decide_gate(decision, gate)
        return await self._refuse_problem(decision, gate, problem or "stale")

    async def _decide_gate(self, decision: Decision, gate: PendingGate) -> Outcome:
        """The click answers `gate`, the pending one, exactly as shown."""
        thread, actor = decision.thread, decision.actor
        change = await self.audit.change_summary(gate.change_id)
        requester_id = change.requester_id if change else ""
        reason = await self.authorizer.refuse_decision(decision, gate, change)
        if await self.reporter.refuse_if(actor, thread, reason, gate=gate):
            return "refused"
        if decision.choice == "modify" and await self._unread(decision, gate):
            return "refused"
        if datetime.fromisoformat(gate.expires_at) <= self.clock():
            # ended as expired: nobody's choice is applied or recorded; the click is told so
            step = await self.workflow.expire(thread.key, gate)
            await self.reporter.expired(decision, gate, step)
            return "expired"
        outcome = await self._record(decision, gate, requester_id)
        if outcome == "resolved":
            await self.reporter.mark_decided(gate, decision)
            await self._resume(decision, gate)
        return outcome

    async def _unread(self, decision: Decision, gate: PendingGate) -> bool:
        """A Modify the planner cannot act on (no LLM) is answered with how to say it; the
        gate stays open and nothing is recorded as decided."""
        feedback = decision.feedback or ""
        problem = await self.workflow.feedback_problem(decision.thread.key, feedback)
        if problem is None:
            return False
        answer = presenter.present_feedback_problem(gate.change_id, feedback, problem, self.mask)
        await self.reporter.say(decision.thread, answer)
        return True

    async def _record(self, decision: Decision, gate: PendingGate, requester_id: str) -> Outcome:
        """Insert the decision: "resolved" (then resume), "vote" or "already_decided"."""
        thread, actor = decision.thread, decision.actor
        settles = await self.authorizer.settles(decision, gate, requester_id)
        try:
            result = await self.audit.decide(_ballot(decision, gate), settles)
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

    async def _resume_orphan(
        self, thread: ThreadRef, gate: PendingGate, resolution: Resolution
    ) -> None:
        """Called holding the thread lock, under which decisions are recorded AND resumed: `gate`,
        read under it, is still pending though settled in storage — recorded by a process that
        died before resuming. Resume it with the recorded decision."""
        log.warning("resuming %s: its decision was recorded but never resumed", gate.change_id)
        decision = Decision(
            thread,
            Actor(resolution.actor_id, resolution.actor_name),
            resolution.interrupt_id,
            resolution.choice,
            resolution.content_sha256,
            resolution.feedback,
        )
        await self._resume(decision, gate)

    async def _resume(self, decision: Decision, gate: PendingGate) -> None:
        """Called holding the thread lock: answer `gate` with `decision`; show and book what
        the step did."""
        thread = decision.thread
        resumed = GateDecision(
            choice=decision.choice,
            sha256=decision.content_sha256,
            actor_id=decision.actor.id,
            actor_name=decision.actor.name,
            feedback=decision.feedback,
        )
        with self.reporter.running(thread, gate, decision.choice) as on_progress:
            step = await self.workflow.resume(thread.key, gate, resumed, on_progress)
            await self.reporter.present(thread, step)

    async def _refuse_problem(
        self, decision: Decision, gate: PendingGate | None, problem: GateProblem
    ) -> Outcome:
        """A click on a gate that is not the pending one, or whose content changed: told who
        settled it when storage knows, else why the button no longer works. A typed reply to
        an earlier step while a newer one waits is told the preview changed."""
        actor, thread = decision.actor, decision.thread
        if problem == "changed" and gate is not None:
            await self.reporter.refuse(actor, thread, messages.GATE_PROBLEM[problem], gate=gate)
            return "changed"
        if decision.typed and gate is not None:  # typed for an earlier step than the pending one
            await self.reporter.refuse(
                actor,
                thread,
                messages.PREVIEW_CHANGED,
                change_id=gate.change_id,
                interrupt_id=decision.interrupt_id,
            )
            return "stale"
        resolution = await self.audit.resolution(decision.interrupt_id)
        text = already_decided(resolution) if resolution else messages.GATE_PROBLEM["stale"]
        await self.reporter.refuse(
            actor,
            thread,
            text,
            about=resolution.gate if resolution else "",  # the gate the click was for
            change_id=resolution.change_id if resolution else "",
            interrupt_id=decision.interrupt_id,
        )
        return "already_decided" if resolution else "stale"


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
