"""How much read output each channel may have posted in a sliding minute: one person's `show
running-config` on twenty routers is fine, twenty people's at once would flood the channel.

Kept in the database (storage.read_budget_store): replicas on one database spend one budget, and
the check and the charge are one serialized transaction, so concurrent reads cannot pass it
together. A read is first admitted against it (`admitting`) in the transaction that records it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from adapters.chat import ThreadRef
from storage.read_budget_store import BudgetLimit, ReadBudgetStore

__all__ = ["ChannelBudget"]

WINDOW = timedelta(minutes=1)


@dataclass(frozen=True)
class ChannelBudget:
    store: ReadBudgetStore
    limit: int = 5_000_000  # LABBOT_READ_CHANNEL_BUDGET: characters a minute per channel

    def admitting(self, now: datetime) -> BudgetLimit:
        """What a read is admitted against at `now`: none while its channel's minute is spent."""
        return BudgetLimit(now - WINDOW, self.limit)

    async def take(self, where: ThreadRef, chars: int, now: datetime) -> int | None:
        """Charge `chars` to `where`'s channel if they fit in its budget (None); if not, nothing
        is charged and what the channel spent in the minute before `now` is returned."""
        return await self.store.take(
            platform=where.platform,
            channel=where.channel,
            chars=chars,
            at=now,
            since=now - WINDOW,
            limit=self.limit,
        )
