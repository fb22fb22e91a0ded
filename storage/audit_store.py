"""`AuditStore`: the append-only record of changes, decisions, refusals, pushes and outcomes;
its read side is storage.audit_reads.

Rows are only ever inserted, each one a link of the hash chain (storage.audit_chain), their free
text sealed with the chain's storage keys (storage.audit_seal). Deciding a
gate is first-wins across processes: all audit inserts are serialized (PostgreSQL advisory lock,
SQLite write lock) and the unique keys (one resolution per interrupt, one vote per person and
interrupt) are the final word; a lost race comes back as `DecisionConflict` naming the winner.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import asdict
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from base.errors import DecisionConflict
from base.vocabulary import CHOICES, stamp
from storage import audit_chain
from storage.audit_reads import (
    AuditReader,
    as_record,
    open_count_in,
    resolution_in,
    voted_in,
    votes_in,
)
from storage.audit_records import (
    Ballot,
    CapReached,
    CapScope,
    ChangeKind,
    ChangeRecord,
    DecideResult,
    DevicePush,
    OpenCaps,
    ReadsRefused,
    Resolution,
)
from storage.ports import Settles
from storage.read_budget_store import BudgetLimit, spent_query
from storage.schema import (
    agent_calls,
    changes,
    decisions,
    gate_resolutions,
    pushes,
    reads,
    refusals,
)
from storage.schema import change_events as events

__all__ = ["AuditStore"]


def at_least(count: int) -> Settles:
    """`count` approvals settle the gate, whoever gave them."""
    return lambda approvers: len(approvers) >= count


ONE_APPROVAL = at_least(1)


class AuditStore(AuditReader):
    def __init__(
        self,
        engine: AsyncEngine,
        scrub: Callable[[str], str] = str,
        chain: audit_chain.AuditChain | None = None,
        lab: str = "",
    ) -> None:
        """`scrub`: applied to every text written (keeps known credentials out of rows).
        `chain`: the HMAC key of the rows, who hears of each new head (the anchor) and the
        storage keys free text is sealed with. `lab`: the lab whose devices its pushes and
        reads touch, kept on each of those rows ("": not known)."""
        self.engine = engine
        self.lab = lab
        self._scrub = scrub
        self.chain = chain or audit_chain.AuditChain()

    def _append(self) -> AbstractAsyncContextManager[audit_chain.ChainWriter]:
        return self.chain.transaction(self.engine)

    async def _insert(self, table: sa.Table, content: dict[str, Any]) -> dict[str, Any]:
        """One row (its texts scrubbed) appended to the chain in its own transaction."""
        async with self._append() as chain:
            return await chain.append(table, self._clean(content))

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
        caps: OpenCaps | None = None,
        lab: str = "",
    ) -> ChangeRecord | CapReached:
        """Record a change — unless it would take its requester, its channel or everyone past
        `caps`: then nothing is recorded and the cap reached is returned. Counting and recording
        are one serialized transaction, so concurrent requests cannot pass a cap together."""
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
            "lab": lab or None,
        }
        async with self._append() as chain:
            reached = caps and await _cap_reached(chain.conn, caps, requester_id, channel)
            if reached:
                return reached
            return as_record(ChangeRecord, await chain.append(changes, self._clean(content)))

    async def decide(self, ballot: Ballot, settles: Settles = ONE_APPROVAL) -> DecideResult:
        """Record one decision in one transaction; settle the gate when it decides it.

        An approval settles the gate when `settles(approvers so far)`; modify and cancel always do.
        Raises DecisionConflict when the gate is already settled (`existing` = its Resolution)
        or when this person already voted on it (`existing` = None; the message says so).
        """
        if ballot.choice not in CHOICES:
            raise ValueError(f"choice must be one of {CHOICES}, not {ballot.choice!r}")
        try:
            async with self._append() as chain:
                return await self._decide_in(chain, asdict(ballot), settles)
        except IntegrityError:
            # Only reachable if a writer bypassed the serialization: the unique keys still hold.
            raise await self._conflict(ballot) from None

    async def _decide_in(
        self, chain: audit_chain.ChainWriter, vote: dict[str, Any], settles: Settles
    ) -> DecideResult:
        conn, interrupt_id, actor_id = chain.conn, vote["interrupt_id"], vote["actor_id"]
        existing = await resolution_in(conn, chain.storage_keys, interrupt_id)
        if existing is not None:
            raise _settled(existing)
        if await voted_in(conn, interrupt_id, actor_id):
            raise _already_voted(vote["actor_name"])
        await chain.append(decisions, self._clean(vote))
        voted = await votes_in(conn, chain.storage_keys, interrupt_id)
        approvals = tuple(v for v in voted if v.choice == "approve")
        if vote["choice"] == "approve" and not settles(tuple(v.actor_id for v in approvals)):
            return DecideResult(resolved=False, resolution=None, approvals=approvals)
        settled = {k: vote[k] for k in Resolution.__dataclass_fields__ if k != "at"}
        row = await chain.append(gate_resolutions, self._clean(settled))
        return DecideResult(
            resolved=True, resolution=as_record(Resolution, row), approvals=approvals
        )

    async def _conflict(self, ballot: Ballot) -> DecisionConflict:
        async with self.engine.connect() as conn:
            existing = await resolution_in(conn, self._keys, ballot.interrupt_id)
        return _settled(existing) if existing else _already_voted(ballot.actor_name)

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
        await self._insert(refusals, content)

    async def record_pushes(self, change_id: str, results: Sequence[DevicePush]) -> None:
        """Each device's push result, all in one transaction (a fan-out is one write)."""
        async with self._append() as chain:
            for result in results:
                row = {"change_id": change_id, **result, "lab": self.lab or None}
                await chain.append(pushes, self._clean(row))

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
        await self._insert(events, content)

    async def record_agent_call(
        self,
        *,
        agent_id: str,
        agent_name: str,
        principal: str,
        transport: str,
        tool: str,
        arguments: dict[str, Any],
        outcome: str,
        change_id: str | None = None,
        lab: str = "",
    ) -> None:
        """One MCP tool call of an AI agent: what it asked (canonical JSON), for whom, and
        whether it was answered or refused; `lab`: the lab it worked in ("": none named)."""
        content = {
            "change_id": change_id,
            "actor_id": agent_id,
            "actor_name": agent_name,
            "principal": principal,
            "platform": "mcp",
            "channel": transport,
            "tool": tool,
            "arguments": json.dumps(arguments, sort_keys=True, separators=(",", ":")),
            "outcome": outcome,
            "lab": lab or None,
        }
        await self._insert(agent_calls, content)

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
        budget: BudgetLimit | None = None,
    ) -> ReadsRefused | None:
        """Who sends which read to which device (`sent`: device -> command), before it is sent —
        unless it would take `actor_id` past `limit` reads since `since`, or the channel's
        `budget` is spent: then nothing is recorded and what is full is returned. Counting,
        checking and recording are one serialized transaction, so concurrent reads cannot pass
        the limit together."""
        async with self._append() as chain:
            counted = _reads_counted(actor_id, since, (platform, channel), budget)
            recent, spent = (int(n) for n in (await chain.conn.execute(counted)).one())
            if recent + len(sent) > limit:
                return ReadsRefused("rate", recent)
            if budget is not None and spent >= budget.limit:
                return ReadsRefused("budget", spent)
            for device, command in sent.items():
                content = {
                    "change_id": None,
                    "actor_id": actor_id,
                    "actor_name": actor_name,
                    "platform": platform,
                    "channel": channel,
                    "device": device,
                    "command": command,
                    "lab": self.lab or None,
                }
                await chain.append(reads, self._clean(content))
        return None


def _reads_counted(
    actor_id: str, since: datetime, where: tuple[str, str], budget: BudgetLimit | None
) -> sa.Select[Any]:
    """In one statement (each is a round trip): the person's reads since `since` and what the
    channel `where` (platform, channel) was charged within its `budget` (0 without one)."""
    recent = sa.select(sa.func.count()).where(reads.c.actor_id == actor_id, reads.c.at >= since)
    spent: sa.ColumnElement[Any] = sa.literal(0)
    if budget is not None:
        spent = spent_query(*where, budget.since).scalar_subquery()
    return sa.select(recent.scalar_subquery(), spent)


async def _cap_reached(
    conn: AsyncConnection, caps: OpenCaps, requester_id: str, channel: str
) -> CapReached | None:
    """The first cap one more change would pass (the requester's, the channel's, everyone's)."""
    counted: list[tuple[CapScope, int, dict[str, str]]] = [
        ("user", caps.per_user, {"requester_id": requester_id}),
        ("channel", caps.per_channel, {"channel": channel}),
        ("overall", caps.overall, {}),
    ]
    for scope, cap, where in counted:
        count = await open_count_in(conn, since=caps.since, **where)
        if count >= cap:
            return CapReached(scope, count)
    return None


def _settled(existing: Resolution) -> DecisionConflict:
    return DecisionConflict(
        f"gate already settled: {existing.choice} by {existing.actor_name} at {stamp(existing.at)}",
        existing=existing,
    )


def _already_voted(actor_name: str) -> DecisionConflict:
    return DecisionConflict(f"{actor_name} already voted on this gate", existing=None)
