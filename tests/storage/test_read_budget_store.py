"""The read budget in the database: a channel is charged only within its limit, each channel
apart, the minute slides; concurrent takes from two engines (two replicas) on one database
cannot pass it together. SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncEngine

from storage.db import make_engine
from storage.read_budget_store import ReadBudgetStore

START = datetime(2026, 1, 1, tzinfo=UTC)
MINUTE = timedelta(minutes=1)


async def take(store: ReadBudgetStore, channel: str, chars: int, at: datetime) -> int | None:
    return await store.take(
        platform="slack", channel=channel, chars=chars, at=at, since=at - MINUTE, limit=1000
    )


async def test_a_channel_is_charged_only_within_its_budget_and_the_minute_slides(
    engine: AsyncEngine,
) -> None:
    store = ReadBudgetStore(engine)
    assert await take(store, "C1", 600, START) is None
    assert await take(store, "C1", 500, START) == 600  # would pass the budget: nothing charged
    assert await store.spent("slack", "C1", START - MINUTE) == 600
    assert await take(store, "C2", 1000, START) is None  # another channel has its own
    later = START + timedelta(seconds=30)
    assert await take(store, "C1", 400, later) is None
    assert await take(store, "C1", 1, later) == 1000
    after = START + timedelta(seconds=60.5)  # the first charge left the window, the second not
    assert await store.spent("slack", "C1", after - MINUTE) == 400
    assert await take(store, "C1", 600, after) is None
    assert await store.spent("matrix", "C1", after - MINUTE) == 0  # a channel of a platform


async def test_two_replicas_taking_at_once_spend_one_budget(
    engine: AsyncEngine, database_url: str
) -> None:
    other = make_engine(database_url)
    try:
        stores = [ReadBudgetStore(engine), ReadBudgetStore(other)]
        takes = [take(stores[n % 2], "C1", 300, START) for n in range(10)]
        refused = [spent for spent in await asyncio.gather(*takes) if spent is not None]
    finally:
        await other.dispose()
    assert len(refused) == 7 and set(refused) == {900}
    assert await stores[0].spent("slack", "C1", START - MINUTE) == 900
