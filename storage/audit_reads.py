"""Reading the audit: votes and resolutions of a gate, open and recent changes, everything
recorded about one change, the flat listing (storage.audit_entries) and the chain check.
Rows are read opened (storage.audit_seal): their free text as it was written."""

from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from base.vocabulary import as_utc
from storage import audit_chain
from storage.audit_entries import query_entries
from storage.audit_records import (
    AuditEntry,
    ChainReport,
    ChangeEvent,
    ChangeRecord,
    ChangeSummary,
    GateSummary,
    PushRow,
    Refusal,
    Resolution,
    Vote,
)
from storage.audit_seal import open_row
from storage.encryption import StorageKeys
from storage.schema import change_events as events
from storage.schema import changes, decisions, gate_resolutions, pushes, refusals

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

R = TypeVar("R", bound="DataclassInstance")


async def open_count_in(
    conn: AsyncConnection,
    *,
    since: datetime,
    requester_id: str | None = None,
    channel: str | None = None,
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
    return int((await conn.execute(query)).scalar_one())


def as_record(cls: type[R], row: Any) -> R:
    """A record dataclass from a row as written (a dict, or a row opened by `open_row`),
    times as aware UTC."""
    fields = {field.name: row[field.name] for field in dataclasses.fields(cls)}
    fields["at"] = as_utc(fields["at"])
    return cls(**fields)


class AuditReader:
    """The read side of the audit store (`AuditStore` adds the writes)."""

    engine: AsyncEngine
    chain: audit_chain.AuditChain

    @property
    def _keys(self) -> StorageKeys | None:
        return self.chain.storage_keys

    def _change(self, row: Any) -> ChangeRecord:
        return as_record(ChangeRecord, open_row(changes, row, self._keys))

    async def resolution(self, interrupt_id: str) -> Resolution | None:
        async with self.engine.connect() as conn:
            return await resolution_in(conn, self._keys, interrupt_id)

    async def votes(self, interrupt_id: str) -> list[Vote]:
        async with self.engine.connect() as conn:
            return await votes_in(conn, self._keys, interrupt_id)

    async def open_change_records(self, platform: str | None = None) -> list[ChangeRecord]:
        """Changes not yet ended (no outcome recorded), oldest first; of `platform` if given."""
        ended = sa.select(events.c.change_id)
        query = sa.select(changes).where(changes.c.change_id.not_in(ended))
        if platform is not None:
            query = query.where(changes.c.platform == platform)
        async with self.engine.connect() as conn:
            rows = await conn.execute(query.order_by(changes.c.seq))
            return [self._change(row) for row in rows]

    async def recent_change_records(
        self, platform: str | None = None, limit: int = 10
    ) -> list[ChangeRecord]:
        """The newest changes (of `platform` if given), newest first."""
        query = sa.select(changes).order_by(changes.c.seq.desc()).limit(limit)
        if platform is not None:
            query = query.where(changes.c.platform == platform)
        async with self.engine.connect() as conn:
            return [self._change(row) for row in await conn.execute(query)]

    async def latest_change_for_thread(self, thread_key: str) -> ChangeRecord | None:
        query = sa.select(changes).where(changes.c.thread_key == thread_key)
        async with self.engine.connect() as conn:
            row = (await conn.execute(query.order_by(changes.c.seq.desc()).limit(1))).first()
        return self._change(row) if row else None

    async def change_summary(self, change_id: str) -> ChangeSummary | None:
        async with self.engine.connect() as conn:
            row = (
                await conn.execute(sa.select(changes).where(changes.c.change_id == change_id))
            ).first()
            if row is None:
                return None
            change = self._change(row)
            by_change = await _rows_by_change(conn, self._keys, change_id)
            rollbacks = [
                self._change(r)
                for r in await conn.execute(
                    sa.select(changes)
                    .where(changes.c.rollback_of == change_id)
                    .order_by(changes.c.seq)
                )
            ]
            ended = await _rollback_events(conn, [r.change_id for r in rollbacks])
            return ChangeSummary(
                **{k: getattr(change, k) for k in ChangeRecord.__dataclass_fields__},
                gates=_gates(by_change[decisions], by_change[gate_resolutions]),
                pushes=tuple(as_record(PushRow, r) for r in by_change[pushes]),
                refusals=tuple(as_record(Refusal, r) for r in by_change[refusals]),
                rollbacks=tuple(rollbacks),
                events=tuple(as_record(ChangeEvent, r) for r in by_change[events]),
                rollback_events=tuple(
                    as_record(ChangeEvent, open_row(events, r, self._keys)) for r in ended
                ),
            )

    async def entries(
        self,
        change_id: str | None = None,
        user: str | None = None,
        device: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        lab: str | None = None,
    ) -> list[AuditEntry]:
        """Audit rows in time order; `user` matches an id or a display name, `until` excludes;
        `lab`: only that lab's rows."""
        async with self.engine.connect() as conn:
            return await query_entries(
                conn,
                self._keys,
                change_id=change_id,
                user=user,
                device=device,
                since=since,
                until=until,
                lab=lab,
            )

    async def verify(self, anchor: audit_chain.ChainHead | None = None) -> ChainReport:
        """The chain checked row by row, then against `anchor` (the head kept outside)."""
        async with self.engine.connect() as conn:
            return await audit_chain.verify(conn, self.chain.key, anchor, self._keys)


async def _rollback_events(conn: AsyncConnection, rollback_ids: list[str]) -> list[Any]:
    """How the rollbacks of a change ended (no query when it has none: most changes, read at
    every click)."""
    if not rollback_ids:
        return []
    query = sa.select(events).where(events.c.change_id.in_(rollback_ids))
    return list(await conn.execute(query.order_by(events.c.seq)))


async def resolution_in(
    conn: AsyncConnection, keys: StorageKeys | None, interrupt_id: str
) -> Resolution | None:
    query = sa.select(gate_resolutions).where(gate_resolutions.c.interrupt_id == interrupt_id)
    row = (await conn.execute(query)).first()
    return as_record(Resolution, open_row(gate_resolutions, row, keys)) if row else None


async def voted_in(conn: AsyncConnection, interrupt_id: str, actor_id: str) -> bool:
    query = sa.select(decisions.c.id).where(
        decisions.c.interrupt_id == interrupt_id, decisions.c.actor_id == actor_id
    )
    return (await conn.execute(query)).first() is not None


async def votes_in(
    conn: AsyncConnection, keys: StorageKeys | None, interrupt_id: str
) -> list[Vote]:
    query = sa.select(decisions).where(decisions.c.interrupt_id == interrupt_id)
    rows = await conn.execute(query.order_by(decisions.c.seq))
    return [as_record(Vote, open_row(decisions, r, keys)) for r in rows]


async def _rows_by_change(
    conn: AsyncConnection, keys: StorageKeys | None, change_id: str
) -> dict[sa.Table, list[dict[str, Any]]]:
    """Each table's rows about `change_id`, opened, in chain order."""
    found = {}
    for table in (decisions, gate_resolutions, pushes, refusals, events):
        query = sa.select(table).where(table.c.change_id == change_id).order_by(table.c.seq)
        found[table] = [open_row(table, row, keys) for row in await conn.execute(query)]
    return found


def _gates(
    votes: list[dict[str, Any]], resolutions: list[dict[str, Any]]
) -> tuple[GateSummary, ...]:
    settled = {r["interrupt_id"]: as_record(Resolution, r) for r in resolutions}
    order: dict[str, GateSummary] = {}
    for row in votes:
        vote: Vote = as_record(Vote, row)
        known = order.get(vote.interrupt_id)
        order[vote.interrupt_id] = GateSummary(
            gate=vote.gate,
            interrupt_id=vote.interrupt_id,
            votes=(known.votes if known else ()) + (vote,),
            resolution=settled.get(vote.interrupt_id),
        )
    return tuple(order.values())
