"""The decision service on its own: fakes of the workflow, the audit and the chat (no database,
no lab), so each case shows what a person in the thread sees and what is recorded."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from adapters.chat import Actor, ChatEvent, Decision, Message, Request, ThreadRef
from base.errors import DecisionConflict
from base.vocabulary import Choice
from bot.decisions.metrics import Metrics
from bot.decisions.service import DecisionService
from bot.policy.rules import Policy
from bot.runtime.wiring import decision_service
from storage.audit_records import (
    Ballot,
    CapReached,
    ChangeKind,
    ChangeRecord,
    ChangeSummary,
    DecideResult,
    DevicePush,
    OpenCaps,
    Resolution,
    Vote,
)
from storage.audit_store import ONE_APPROVAL
from storage.ports import Settles
from workflow.api import Finished, ParamsGate, PendingGate, Step
from workflow.model import StepProgress
from workflow.phases.reviews import GateDecision, ParamsReview, ReviewedTemplate
from workflow.results.feedback import FeedbackProblem
from workflow.state import Requester

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
THREAD = ThreadRef("console", "lab", "t1")
ALICE, BOB = Actor("alice", "Alice"), Actor("bob", "Bob")
SHA = "b" * 64


def params_gate(expires_at: datetime = NOW + timedelta(hours=1)) -> ParamsGate:
    review = ParamsReview(
        template=ReviewedTemplate(name="ntp", description="NTP", sha256="a" * 64), devices={}
    )
    return ParamsGate("int-1", "params", "chg-1", review, SHA, expires_at.isoformat())


@dataclass
class FakeWorkflow:
    """The workflow API as the service uses it (bot.ports.ChangeRunner); records every start,
    resume and expiry."""

    pending: PendingGate | None
    started: list[str] = field(default_factory=list)
    resumed: list[GateDecision] = field(default_factory=list)
    expired: list[str] = field(default_factory=list)
    on_resume: Callable[[], None] = lambda: None  # called as a resume begins

    async def pending_gate(self, thread_id: str) -> PendingGate | None:
        return self.pending

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
        self.started.append(text)
        self.pending = params_gate()
        return self.pending

    async def resume(
        self,
        thread_id: str,
        gate: PendingGate,
        decision: GateDecision,
        on_progress: StepProgress | None = None,
    ) -> Step:
        self.on_resume()
        self.resumed.append(decision)
        self.pending = None
        return Finished("chg-1", "cancelled", "cancelled at the params review", None, {})

    async def feedback_problem(self, thread_id: str, feedback: str) -> FeedbackProblem | None:
        return None  # every Modify can be read (as with an LLM)

    async def expire(self, thread_id: str, gate: PendingGate) -> Step:
        self.expired.append(gate.interrupt_id)
        self.pending = None
        return Finished("chg-1", "expired", "the params review expired", None, {})


@dataclass
class FakeAudit:
    """The audit's decision side (storage.ports.DecisionRecords) in memory: first decision
    wins; changes, refusals, pushes and outcomes kept."""

    settled: Resolution | None = None
    changes: list[str] = field(default_factory=list)
    refusals: list[str] = field(default_factory=list)
    pushes: list[str] = field(default_factory=list)
    events: list[str] = field(default_factory=list)

    async def record_change(
        self,
        change_id: str,
        *,
        thread_key: str,
        platform: str,
        channel: str,
        requester_id: str,
        requester_name: str,
        text: str,
        kind: ChangeKind = "change",
        rollback_of: str | None = None,
        caps: OpenCaps | None = None,
        lab: str = "",
    ) -> ChangeRecord | CapReached:
        self.changes.append(text)
        return ChangeRecord(
            change_id, kind, rollback_of, thread_key, platform, channel, requester_id,
            requester_name, text, NOW, lab,
        )  # fmt: skip

    async def change_summary(self, change_id: str) -> ChangeSummary:
        return ChangeSummary(
            change_id, "change", None, THREAD.key, "console", "lab", "alice", "Alice", "ntp",
            NOW, None, (), (), (), (), (),
        )  # fmt: skip

    async def votes(self, interrupt_id: str) -> list[Vote]:
        return []

    async def resolution(self, interrupt_id: str) -> Resolution | None:
        return self.settled

    async def decide(self, ballot: Ballot, settles: Settles = ONE_APPROVAL) -> DecideResult:
        if self.settled is not None:
            raise DecisionConflict("gate already settled", existing=self.settled)
        self.settled = Resolution(
            ballot.interrupt_id, ballot.change_id, ballot.gate, ballot.choice, ballot.actor_id,
            ballot.actor_name, ballot.content_sha256, ballot.feedback, NOW,
        )  # fmt: skip
        return DecideResult(True, self.settled, ())

    async def record_refusal(
        self,
        *,
        change_id: str | None,
        interrupt_id: str | None,
        gate: str | None,
        actor_id: str,
        actor_name: str,
        platform: str,
        channel: str,
        reason: str,
    ) -> None:
        self.refusals.append(reason)

    async def record_pushes(self, change_id: str, results: Sequence[DevicePush]) -> None:
        self.pushes.extend(result["device"] for result in results)

    async def record_change_event(
        self,
        *,
        change_id: str,
        status: str,
        detail: str = "",
        tokens: dict[str, Any] | None = None,
    ) -> None:
        self.events.append(status)

    async def open_change_records(self, platform: str | None = None) -> list[ChangeRecord]:
        return []

    async def recent_change_records(
        self, platform: str | None = None, limit: int = 10
    ) -> list[ChangeRecord]:
        return []


@dataclass
class FakeChat:
    """A chat platform that keeps what was posted, and to whom."""

    platform: str = "console"
    posted: list[Message] = field(default_factory=list)

    async def run(self, handler: Callable[[ChatEvent], Awaitable[None]]) -> None: ...

    async def post(self, thread: ThreadRef, message: Message) -> str:
        self.posted.append(message)
        return f"m{len(self.posted)}"

    async def update(self, thread: ThreadRef, message_id: str, message: Message) -> None:
        self.posted.append(message)

    async def close_gate(
        self, thread: ThreadRef, message_id: str, footer: str, mentions: tuple[str, ...] = ()
    ) -> None:
        self.posted.append(Message(footer, mentions=mentions))


@asynccontextmanager
async def no_lock(key: str) -> AsyncIterator[None]:
    yield


def service(workflow: FakeWorkflow, audit: FakeAudit, chat: FakeChat) -> DecisionService:
    return decision_service(
        workflow=workflow,
        audit=audit,
        adapter=chat,
        policy=Policy(),
        thread_lock=no_lock,
        clock=lambda: NOW,
        metrics=Metrics(),
    )


def click(actor: Actor, choice: Choice = "cancel", sha256: str = SHA) -> Decision:
    return Decision(THREAD, actor, "int-1", choice, sha256)


def decisions(metrics: Metrics, outcome: str) -> float:
    value = metrics.registry.get_sample_value(
        "labbot_decisions_total", {"choice": "approve", "outcome": outcome}
    )
    return (value or 0) + (
        metrics.registry.get_sample_value(
            "labbot_decisions_total", {"choice": "cancel", "outcome": outcome}
        )
        or 0
    )


async def test_the_requester_cannot_approve_their_own_push() -> None:
    workflow, audit, chat = FakeWorkflow(params_gate()), FakeAudit(), FakeChat()
    bot = service(workflow, audit, chat)
    await bot.handle(click(ALICE, "approve"))
    assert workflow.resumed == [] and audit.settled is None
    assert audit.refusals and "Refused" in audit.refusals[0]
    assert chat.posted[-1].ephemeral_to == "alice" and chat.posted[-1].text == audit.refusals[0]
    assert decisions(bot.metrics, "refused") == 1


async def test_a_click_on_a_changed_gate_is_refused_and_nothing_resumes() -> None:
    workflow, audit, chat = FakeWorkflow(params_gate()), FakeAudit(), FakeChat()
    bot = service(workflow, audit, chat)
    await bot.handle(click(BOB, "approve", sha256="c" * 64))
    assert workflow.resumed == [] and audit.settled is None
    assert "differs from what is pending" in chat.posted[-1].text
    assert decisions(bot.metrics, "changed") == 1


async def test_an_expired_gate_ends_as_expired_in_nobodys_name() -> None:
    workflow = FakeWorkflow(params_gate(expires_at=NOW - timedelta(minutes=1)))
    audit, chat = FakeAudit(), FakeChat()
    bot = service(workflow, audit, chat)
    await bot.handle(click(BOB, "cancel"))
    assert workflow.expired == ["int-1"] and workflow.resumed == []
    assert audit.settled is None  # no decision recorded for anybody
    assert "expired" in audit.refusals[0] and audit.events == ["expired"]
    [footer] = [m.text for m in chat.posted if m.text.startswith("⌛")]  # the gate's new footer
    assert footer.startswith("⌛ Expired at 2026-11-30 11:59:00 UTC") and "Bob" not in footer
    assert decisions(bot.metrics, "expired") == 1


async def test_a_decision_recorded_but_never_resumed_is_resumed_by_the_next_click() -> None:
    workflow, chat = FakeWorkflow(params_gate()), FakeChat()
    earlier = Resolution("int-1", "chg-1", "params", "cancel", "bob", "Bob", SHA, None, NOW)
    audit = FakeAudit(settled=earlier)  # a replica recorded Bob's cancel, then died
    bot = service(workflow, audit, chat)
    await bot.handle(click(Actor("carol", "Carol"), "cancel"))
    assert [(d["choice"], d["actor_name"]) for d in workflow.resumed] == [("cancel", "Bob")]
    assert any("already cancelled by Bob" in m.text for m in chat.posted)
    assert audit.events == ["cancelled"]


async def test_a_settling_click_shows_who_decided_before_the_step_runs_then_the_step() -> None:
    workflow, audit, chat = FakeWorkflow(params_gate()), FakeAudit(), FakeChat()
    shown_when_resumed: list[list[str]] = []
    workflow.on_resume = lambda: shown_when_resumed.append([m.text for m in chat.posted])
    bot = service(workflow, audit, chat)
    await bot.handle(click(BOB, "cancel"))
    [before] = shown_when_resumed  # resumed once, the buttons already replaced by who decided
    assert len(before) == 1 and "Bob" in before[0]
    [after] = chat.posted[1:]  # then the step it ran to, shown once
    assert "cancelled" in after.text.lower() and audit.events == ["cancelled"]
    assert decisions(bot.metrics, "resolved") == 1


async def test_a_stale_button_is_told_who_decided() -> None:
    workflow, chat = FakeWorkflow(None), FakeChat()
    earlier = Resolution("int-1", "chg-1", "params", "approve", "bob", "Bob", SHA, None, NOW)
    bot = service(workflow, FakeAudit(settled=earlier), chat)
    await bot.handle(click(Actor("carol", "Carol"), "approve"))
    assert workflow.resumed == []
    assert chat.posted[-1].text.startswith("This step was already approved by Bob at 2026-11-30")


async def test_a_request_is_recorded_then_planned_up_to_its_gate() -> None:
    workflow, audit, chat = FakeWorkflow(None), FakeAudit(), FakeChat()
    await service(workflow, audit, chat).handle(Request(THREAD, ALICE, "configure ntp on R1"))
    assert audit.changes == ["configure ntp on R1"] and workflow.started == audit.changes
    assert [b.label for b in chat.posted[-1].buttons] == ["Execute", "Modify", "Cancel"]


async def test_a_request_while_a_gate_waits_starts_nothing() -> None:
    workflow, audit, chat = FakeWorkflow(params_gate()), FakeAudit(), FakeChat()
    await service(workflow, audit, chat).handle(Request(THREAD, BOB, "configure ntp on R2"))
    assert workflow.started == [] and audit.changes == []
    assert "already waiting for a decision in this thread (chg-1)" in chat.posted[-1].text
