"""Chat deliveries seen lately, in the database: the first replica to record one handles it.

Slack retries a delivery it thinks was missed (X-Slack-Retry-Num), and behind a load balancer the
retry may reach another replica; the unique key (team, delivery key) makes every replica agree on
who saw it first. Rows older than `KEEP` are pruned as new ones come (Slack retries for minutes).
"""

from __future__ import annotations

from datetime import datetime, timedelta

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from base.vocabulary import utc_now
from storage.schema import deliveries

__all__ = ["DeliveryStore"]

KEEP = timedelta(days=1)
PRUNE_EVERY = 500  # deliveries recorded between two prunes by one process


class DeliveryStore:
    """`first_time(team, key)`: True for exactly one caller across every replica."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self._until_prune = 0

    async def first_time(self, team: str, key: str) -> bool:
        now = utc_now()
        try:
            async with self.engine.begin() as conn:
                row = {"team": team, "key": key, "received_at": now}
                await conn.execute(sa.insert(deliveries).values(row))
        except IntegrityError:
            return False
        await self._prune_now_and_then(now)
        return True

    async def _prune_now_and_then(self, now: datetime) -> None:
        self._until_prune -= 1
        if self._until_prune > 0:
            return
        self._until_prune = PRUNE_EVERY
        async with self.engine.begin() as conn:
            await conn.execute(sa.delete(deliveries).where(deliveries.c.received_at < now - KEEP))
