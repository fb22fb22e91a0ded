"""`AuditStore`: the append-only record of changes, decisions, refusals, pushes and outcomes.

Rows are only ever inserted, each one a link of the hash chain (storage.audit_chain). Deciding a
gate is first-wins across processes: all audit inserts are serialized (PostgreSQL advisory lock,
SQLite write lock) and the unique keys (one resolution per interrupt, one vote per person and
interrupt) are the final word; a lost race comes back as `DecisionConflict` naming the winner.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from base.errors import DecisionConflict
from base.vocabulary import CHOICES, Choice, GateName, as_utc, stamp
from storage import audit_chain
from storage.audit_entries import query_entries
from storage.audit_records import (
    AuditEntry,
    ChainReport,
    ChangeEvent,
    ChangeKind,
    ChangeRecord,
    ChangeSummary,
    DecideResult,
    GateSummary,
    PushRecord,
    Refusal,
    Resolution,
    Vote,
)
from storage.schema import change_events as events
from storage.schema import changes, decisions, gate_resolutions, pushes, reads, refusals

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

R = TypeVar("R", bound="DataclassInstance")
# Whether the approvals so far (actor ids, in order) settle a gate; the policy decides.
Settles = Callable[[tuple[str, ...]], bool]


def at_least(count: int) -> Settles:
    """`count` approvals settle the gate, whoever gave them."""
    return lambda approvers: len(approvers) >= count


ONE_APPROVAL = at_least(1)


def _record(cls: type[R], row: Any) -> R:
    """A record dataclass from a row or dict, times as aware UTC."""
    data = row._mapping if hasattr(row, "_mapping") else row
    fields = {field.name: data[field.name] for field in dataclasses.fields(cls)}
    fields["at"] = as_utc(fields["at"])
    return cls(**fields)


class AuditStore:
    def __init__(
        self,
        engine: AsyncEngine,
        scrub: Callable[[str], str] = str,
        chain: audit_chain.AuditChain | None = None,
    ) -> None:
        """`scrub`: applied to every text written (keeps known credentials out of rows).
        `chain`: the HMAC key of the rows and who hears of each new head (the anchor)."""
        self.engine = engine
        self._scrub = scrub
        self.chain = chain or audit_chain.AuditChain()

    def _append(self) -> Any:
        return self.chain.transaction(self.engine)

    def _clean(self, content: dict[str, Any]) -> dict[str, Any]:
        return {k: self._scrub(v) if isinstance(v, str) else v for k, v in content.items()}

    # --- recording ------------------------------------------------------------------------------

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
    ) -> ChangeRecord:
        content = {
            "change_id": change_id,
            "kind": kind,
            "rollback_of": rollback_of,
            "thread_key": thread_key,
            "platform": platform,
            "channel": channel,
            "requester_id": requester_id,
            "requester_name": requester_name,
            "text": text,
        }
        async with self._append() as chain:
            row = await chain.append(changes, self._clean(content))
        return _record(ChangeRecord, row)

    async def decide(
        self,
        *,
        change_id: str,
        gate: GateName,
        interrupt_id: str,
        choice: Choice,
        actor_id: str,
        actor_name: str,
        platform: str,
        channel: str,
        content_sha256: str,
        feedback: str | None = None,
        settles: Settles = ONE_APPROVAL,
    ) -> DecideResult:
        """Record one decision in one transaction; settle the gate when it decides it.

        An approval settles the gate when `settles(approvers so far)`; modify and cancel always do.
        Raises DecisionConflict when the gate is already settled (`existing` = its Resolution)
        or when this person already voted on it (`existing` = None; the message says so).
        """
        if choice not in CHOICES:
            raise ValueError(f"choice must be one of {CHOICES}, not {choice!r}")
        vote = {
            "change_id": change_id,
            "gate": gate,
            "interrupt_id": interrupt_id,
            "choice": choice,
            "actor_id": actor_id,
            "actor_name": actor_name,
            "platform": platform,
            "channel": channel,
            "content_sha256": content_sha256,
            "feedback": feedback,
        }
        try:
            async with self._append() as chain:
                return await self._decide_in(chain, vote, settles)
        except IntegrityError:
            # Only reachable if a writer bypassed the serialization: the unique keys still hold.
            raise await self._conflict(interrupt_id, actor_id, actor_name) from None

    async def _decide_in(
        self, chain: audit_chain.ChainWriter, vote: dict[str, Any], settles: Settles
    ) -> DecideResult:
        conn, interrupt_id, actor_id = chain.conn, vote["interrupt_id"], vote["actor_id"]
        existing = await self._resolution_in(conn, interrupt_id)
        if existing is not None:
            raise _settled(existing)
        if await self._voted_in(conn, interrupt_id, actor_id):
            raise _already_voted(vote["actor_name"])
        await chain.append(decisions, self._clean(vote))
        approvals = tuple(
            v for v in await self._votes_in(conn, interrupt_id) if v.choice == "approve"
        )
        if vote["choice"] == "approve" and not settles(tuple(v.actor_id for v in approvals)):
            return DecideResult(resolved=False, resolution=None, approvals=approvals)
        settled = {k: vote[k] for k in Resolution.__dataclass_fields__ if k != "at"}
        row = await chain.append(gate_resolutions, self._clean(settled))
        return DecideResult(resolved=True, resolution=_record(Resolution, row), approvals=approvals)

    async def _conflict(
        self, interrupt_id: str, actor_id: str, actor_name: str
    ) -> DecisionConflict:
        async with self.engine.connect() as conn:
            existing = await self._resolution_in(conn, interrupt_id)
        return _settled(existing) if existing else _already_voted(actor_name)

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
        content = {
            "change_id": change_id,
            "interrupt_id": interrupt_id,
            "gate": gate,
            "actor_id": actor_id,
            "actor_name": actor_name,
            "platform": platform,
            "channel": channel,
            "reason": reason,
        }
        async with self._append() as chain:
            await chain.append(refusals, self._clean(content))

    async def record_push(
        self, *, change_id: str, device: str, lines_sha256: str, status: str, detail: str
    ) -> None:
        content = {
            "change_id": change_id,
            "device": device,
            "lines_sha256": lines_sha256,
            "status": status,
            "detail": detail,
        }
        async with self._append() as chain:
            await chain.append(pushes, self._clean(content))

    async def record_change_event(
        self,
        *,
        change_id: str,
        status: str,
        detail: str = "",
        tokens: dict[str, Any] | None = None,
    ) -> None:
        """An outcome (done, cancelled, failed, expired, blocked, ...) with token usage."""
        usage = json.dumps(tokens, sort_keys=True, separators=(",", ":")) if tokens else None
        content = {"change_id": change_id, "status": status, "detail": detail, "tokens": usage}
        async with self._append() as chain:
            await chain.append(events, self._clean(content))

    async def record_reads(
        self,
        *,
        actor_id: str,
        actor_name: str,
        platform: str,
        channel: str,
        sent: dict[str, str],
        since: datetime,
        limit: int,
    ) -> int | None:
        """Who sends which read to which device (`sent`: device -> command), before it is sent —
        unless it would take `actor_id` past `limit` reads since `since`: then nothing is
        recorded and the count already sent is returned. Counting and recording are one
        serialized transaction, so concurrent reads cannot pass the limit together."""
        async with self._append() as chain:
            count = sa.select(sa.func.count()).where(
                reads.c.actor_id == actor_id, reads.c.at >= since
            )
            recent = int((await chain.conn.execute(count)).scalar_one())
            if recent + len(sent) > limit:
                return recent
            for device, command in sent.items():
                content = {
                    "change_id": None,
                    "actor_id": actor_id,
                    "actor_name": actor_name,
                    "platform": platform,
                    "channel": channel,
                    "device": device,
                    "command": command,
                }
                await chain.append(reads, self._clean(content))
        return None

    # --- queries --------------------------------------------------------------------------------

    async def resolution(self, interrupt_id: str) -> Resolution | None:
        async with self.engine.connect() as conn:
            return await self._resolution_in(conn, interrupt_id)

    async def votes(self, interrupt_id: str) -> list[Vote]:
        async with self.engine.connect() as conn:
            return await self._votes_in(conn, interrupt_id)

    async def open_changes(
        self, *, since: datetime, requester_id: str | None = None, channel: str | None = None
    ) -> int:
        """Changes requested since `since` (by `requester_id`, in `channel`) not yet ended."""
        ended = sa.select(events.c.change_id)
        query = sa.select(sa.func.count()).where(
            changes.c.at >= since, changes.c.change_id.not_in(ended)
        )
        if requester_id is not None:
            query = query.where(changes.c.requester_id == requester_id)
        if channel is not None:
            query = query.where(changes.c.channel == channel)
        async with self.engine.connect() as conn:
            return int((await conn.execute(query)).scalar_one())

    async def open_change_records(self, platform: str | None = None) -> list[ChangeRecord]:
        """Changes not yet ended (no outcome recorded), oldest first; of `platform` if given."""
        ended = sa.select(events.c.change_id)
        query = sa.select(changes).where(changes.c.change_id.not_in(ended))
        if platform is not None:
            query = query.where(changes.c.platform == platform)
        async with self.engine.connect() as conn:
            rows = await conn.execute(query.order_by(changes.c.seq))
            return [_record(ChangeRecord, row) for row in rows]

    async def recent_change_records(
        self, platform: str | None = None, limit: int = 10
    ) -> list[ChangeRecord]:
        """The newest changes (of `platform` if given), newest first."""
        query = sa.select(changes).order_by(changes.c.seq.desc()).limit(limit)
        if platform is not None:
            query = query.where(changes.c.platform == platform)
        async with self.engine.connect() as conn:
            return [_record(ChangeRecord, row) for row in await conn.execute(query)]

    async def latest_change_for_thread(self, thread_key: str) -> ChangeRecord | None:
        query = sa.select(changes).where(changes.c.thread_key == thread_key)
        async with self.engine.connect() as conn:
            row = (await conn.execute(query.order_by(changes.c.seq.desc()).limit(1))).first()
        return _record(ChangeRecord, row) if row else None

    async def change_summary(self, change_id: str) -> ChangeSummary | None:
        async with self.engine.connect() as conn:
            row = (
                await conn.execute(sa.select(changes).where(changes.c.change_id == change_id))
            ).first()
            if row is None:
                return None
            change: ChangeRecord = _record(ChangeRecord, row)
            by_change = await _rows_by_change(conn, change_id)
            rollbacks = await conn.execute(
                sa.select(changes).where(changes.c.rollback_of == change_id).order_by(changes.c.seq)
            )
            return ChangeSummary(
                **{k: getattr(change, k) for k in ChangeRecord.__dataclass_fields__},
                gates=_gates(by_change[decisions], by_change[gate_resolutions]),
                pushes=tuple(_record(PushRecord, r) for r in by_change[pushes]),
                refusals=tuple(_record(Refusal, r) for r in by_change[refusals]),
                rollbacks=tuple(_record(ChangeRecord, r) for r in rollbacks),
                events=tuple(_record(ChangeEvent, r) for r in by_change[events]),
            )

    async def entries(
        self,
        change_id: str | None = None,
        user: str | None = None,
        device: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
    ) -> list[AuditEntry]:
        """Audit rows in time order; `user` matches an id or a display name, `until` excludes."""
        async with self.engine.connect() as conn:
            return await query_entries(
                conn, change_id=change_id, user=user, device=device, since=since, until=until
            )

    async def verify(self, anchor: audit_chain.ChainHead | None = None) -> ChainReport:
        """The chain checked row by row, then against `anchor` (the head kept outside)."""
        async with self.engine.connect() as conn:
            return await audit_chain.verify(conn, self.chain.key, anchor)

    # --- helpers --------------------------------------------------------------------------------

    @staticmethod
    async def _resolution_in(conn: AsyncConnection, interrupt_id: str) -> Resolution | None:
        query = sa.select(gate_resolutions).where(gate_resolutions.c.interrupt_id == interrupt_id)
        row = (await conn.execute(query)).first()
        return _record(Resolution, row) if row else None

    @staticmethod
    async def _voted_in(conn: AsyncConnection, interrupt_id: str, actor_id: str) -> bool:
        query = sa.select(decisions.c.id).where(
            decisions.c.interrupt_id == interrupt_id, decisions.c.actor_id == actor_id
        )
        return (await conn.execute(query)).first() is not None

    @staticmethod
    async def _votes_in(conn: AsyncConnection, interrupt_id: str) -> list[Vote]:
        query = sa.select(decisions).where(decisions.c.interrupt_id == interrupt_id)
        return [_record(Vote, r) for r in await conn.execute(query.order_by(decisions.c.seq))]


def _settled(existing: Resolution) -> DecisionConflict:
    return DecisionConflict(
        f"gate already settled: {existing.choice} by {existing.actor_name} at {stamp(existing.at)}",
        existing=existing,
    )


def _already_voted(actor_name: str) -> DecisionConflict:
    return DecisionConflict(f"{actor_name} already voted on this gate", existing=None)


async def _rows_by_change(conn: AsyncConnection, change_id: str) -> dict[sa.Table, list[Any]]:
    found = {}
    for table in (decisions, gate_resolutions, pushes, refusals, events):
        query = sa.select(table).where(table.c.change_id == change_id).order_by(table.c.seq)
        found[table] = list(await conn.execute(query))
    return found


def _gates(votes: list[Any], resolutions: list[Any]) -> tuple[GateSummary, ...]:
    settled = {r.interrupt_id: _record(Resolution, r) for r in resolutions}
    order: dict[str, GateSummary] = {}
    for row in votes:
        vote: Vote = _record(Vote, row)
        known = order.get(vote.interrupt_id)
        order[vote.interrupt_id] = GateSummary(
            gate=vote.gate,
            interrupt_id=vote.interrupt_id,
            votes=(known.votes if known else ()) + (vote,),
            resolution=settled.get(vote.interrupt_id),
        )
    return tuple(order.values())
