"""The decision service on its own: fakes of the workflow, the audit and the chat (no database,
no lab), so each case shows what a person in the thread sees and what is recorded."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from adapters.chat import Actor, Decision, Message, ThreadRef
from base.errors import DecisionConflict
from bot.metrics import Metrics
from bot.policy import Policy
from bot.service import DecisionService
from storage.audit import Settles
from storage.audit_records import ChangeSummary, DecideResult, Resolution, Vote
from workflow.api import Finished, ParamsGate, PendingGate
from workflow.reviews import GateDecision, ParamsReview, ReviewedTemplate

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
    """The workflow API as the service uses it; records every resume and expiry."""

    pending: PendingGate | None
    resumed: list[GateDecision] = field(default_factory=list)
    expired: list[str] = field(default_factory=list)

    async def pending_gate(self, thread_id: str) -> PendingGate | None:
        return self.pending

    async def resume(
        self, thread_id: str, interrupt_id: str, decision: GateDecision, on_progress: object = None
    ) -> Finished:
        self.resumed.append(decision)
        self.pending = None
        return Finished("chg-1", "cancelled", "cancelled at the params review", None, {})

    async def expire(self, thread_id: str, interrupt_id: str) -> Finished:
        self.expired.append(interrupt_id)
        self.pending = None
        return Finished("chg-1", "expired", "the params review expired", None, {})


@dataclass
class FakeAudit:
    """The audit store's decision side, in memory: first decision wins, refusals kept."""

    settled: Resolution | None = None
    refusals: list[str] = field(default_factory=list)
    events: list[str] = field(default_factory=list)

    async def change_summary(self, change_id: str) -> ChangeSummary:
        return ChangeSummary(
            change_id, "change", None, THREAD.key, "console", "lab", "alice", "Alice", "ntp",
            NOW, (), (), (), (), (),
        )  # fmt: skip

    async def votes(self, interrupt_id: str) -> list[Vote]:
        return []

    async def resolution(self, interrupt_id: str) -> Resolution | None:
        return self.settled

    async def decide(self, *, settles: Settles, **vote: object) -> DecideResult:
        if self.settled is not None:
            raise DecisionConflict("gate already settled", existing=self.settled)
        self.settled = Resolution(
            interrupt_id=str(vote["interrupt_id"]), change_id=str(vote["change_id"]),
            gate="params", choice=vote["choice"], actor_id=str(vote["actor_id"]),  # type: ignore[arg-type]
            actor_name=str(vote["actor_name"]), content_sha256=str(vote["content_sha256"]),
            feedback=None, at=NOW,
        )  # fmt: skip
        return DecideResult(True, self.settled, ())

    async def record_refusal(self, *, reason: str, **where: object) -> None:
        self.refusals.append(reason)

    async def record_change_event(self, *, change_id: str, status: str, **rest: object) -> None:
        self.events.append(status)


@dataclass
class FakeChat:
    """A chat platform that keeps what was posted, and to whom."""

    platform: str = "console"
    posted: list[Message] = field(default_factory=list)

    async def run(self, handler: object) -> None: ...

    async def post(self, thread: ThreadRef, message: Message) -> str:
        self.posted.append(message)
        return f"m{len(self.posted)}"

    async def update(self, thread: ThreadRef, message_id: str, message: Message) -> None:
        self.posted.append(message)


class NoLock:
    def __init__(self, key: str) -> None: ...

    async def __aenter__(self) -> None: ...

    async def __aexit__(self, *exc: object) -> None: ...


def service(workflow: FakeWorkflow, audit: FakeAudit, chat: FakeChat) -> DecisionService:
    return DecisionService(
        workflow=workflow,  # type: ignore[arg-type]
        audit=audit,  # type: ignore[arg-type]
        adapter=chat,
        policy=Policy(),
        thread_lock=NoLock,
        clock=lambda: NOW,
        metrics=Metrics(),
    )


def click(actor: Actor, choice: str = "cancel", sha256: str = SHA) -> Decision:
    return Decision(THREAD, actor, "int-1", choice, sha256)  # type: ignore[arg-type]


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


async def test_a_stale_button_is_told_who_decided() -> None:
    workflow, chat = FakeWorkflow(None), FakeChat()
    earlier = Resolution("int-1", "chg-1", "params", "approve", "bob", "Bob", SHA, None, NOW)
    bot = service(workflow, FakeAudit(settled=earlier), chat)
    await bot.handle(click(Actor("carol", "Carol"), "approve"))
    assert workflow.resumed == []
    assert chat.posted[-1].text.startswith("This step was already approved by Bob at 2026-11-30")
