"""What the bot's decision side needs of the audit (`storage.audit_store.AuditStore` is one):
record a change (within the caps on open changes), a decision (first wins), a refusal, a push and
an outcome; read a gate's votes and resolution, open and recent changes, one change's summary.
And of the team's template library (`storage.template_store.TemplateStore`): which templates a
change used."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

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
from workflow.model import TemplatePart

__all__ = ["DecisionRecords", "Settles", "TemplateUses"]

# Whether the approvals so far (actor ids, in order) settle a gate; the policy decides.
Settles = Callable[[tuple[str, ...]], bool]


class DecisionRecords(Protocol):
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
    ) -> ChangeRecord | CapReached: ...

    async def decide(self, ballot: Ballot, settles: Settles = ...) -> DecideResult: ...

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
    ) -> None: ...

    async def record_pushes(self, change_id: str, results: Sequence[DevicePush]) -> None: ...

    async def record_change_event(
        self,
        *,
        change_id: str,
        status: str,
        detail: str = "",
        tokens: dict[str, Any] | None = None,
    ) -> None: ...

    async def resolution(self, interrupt_id: str) -> Resolution | None: ...

    async def votes(self, interrupt_id: str) -> list[Vote]: ...

    async def open_change_records(self, platform: str | None = None) -> list[ChangeRecord]: ...

    async def recent_change_records(
        self, platform: str | None = None, limit: int = 10
    ) -> list[ChangeRecord]: ...

    async def change_summary(self, change_id: str) -> ChangeSummary | None: ...


class TemplateUses(Protocol):
    async def record_use(
        self, change_id: str, parts: Sequence[TemplatePart], status: str
    ) -> None: ...
