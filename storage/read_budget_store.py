"""The per-channel read budget in the database: how many characters of read output each channel
was sent in the last minute, counted and charged in one serialized transaction (as a person's
read rate limit, `AuditStore.record_reads`), so every replica on the database spends one budget
and concurrent reads cannot pass it together. Working state, not audit: rows older than the
window are deleted as new ones are charged. A read is first admitted against its channel's
budget (`BudgetLimit`) in the transaction that records it (`AuditStore.record_reads`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from storage.db import serialized_transaction
from storage.schema import read_budget

__all__ = ["BudgetLimit", "ReadBudgetStore"]

READ_BUDGET_KEY = 0x1AB_B07_004


@dataclass(frozen=True)
class BudgetLimit:
    """A channel's budget as a read is admitted: none while `limit` characters or more were
    charged to it since `since`."""

    since: datetime
    limit: int


class ReadBudgetStore:
    """Read output charged to channels, shared by every process on the database."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def spent(self, platform: str, channel: str, since: datetime) -> int:
        """Characters charged to `channel` since `since`."""
        async with self.engine.connect() as conn:
            return await spent_in(conn, platform, channel, since)

    async def take(
        self, *, platform: str, channel: str, chars: int, at: datetime, since: datetime, limit: int
    ) -> int | None:
        """Charge `chars` to `channel` at `at`, unless that would take what it was charged since
        `since` past `limit`: then nothing is charged and what it was charged is returned."""
        async with serialized_transaction(self.engine, READ_BUDGET_KEY) as conn:
            await conn.execute(sa.delete(read_budget).where(read_budget.c.at < since))
            # one statement charges only what fits (each statement is a round trip)
            spent = spent_query(platform, channel, since).scalar_subquery()
            row = {"platform": platform, "channel": channel, "at": at, "chars": chars}
            values = [sa.literal(value, read_budget.c[name].type) for name, value in row.items()]
            fitting = sa.select(*values).where(spent + chars <= limit)
            columns = list(row)
            charge = sa.insert(read_budget).from_select(columns, fitting)
            if (await conn.execute(charge.returning(read_budget.c.id))).first() is not None:
                return None
            return await spent_in(conn, platform, channel, since)


def spent_query(platform: str, channel: str, since: datetime) -> sa.Select[Any]:
    """Characters charged to `channel` since `since` (0 for none)."""
    return sa.select(sa.func.coalesce(sa.func.sum(read_budget.c.chars), 0)).where(
        read_budget.c.platform == platform,
        read_budget.c.channel == channel,
        read_budget.c.at >= since,
    )


async def spent_in(conn: AsyncConnection, platform: str, channel: str, since: datetime) -> int:
    """Characters charged to `channel` since `since`, read on `conn`."""
    return int((await conn.execute(spent_query(platform, channel, since))).scalar_one())
