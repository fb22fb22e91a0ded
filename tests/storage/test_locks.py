"""Device locks (all or nothing, expiry) and per-thread resume locks."""

from __future__ import annotations

import asyncio
import contextlib
from datetime import timedelta

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from base.vocabulary import utc_now
from storage.db import make_engine
from storage.locks import DeviceLockStore, thread_lock


async def holders(locks: DeviceLockStore, change_id: str, devices: list[str]) -> list[str]:
    """ "device:change" for each device another change holds ([]: all locked for `change_id`)."""
    refused = await locks.acquire(change_id, devices, ttl_seconds=60)
    return [f"{lock.device}:{lock.change_id}" for lock in refused]


async def test_device_locks_are_all_or_nothing(engine: AsyncEngine) -> None:
    locks = DeviceLockStore(engine)
    assert await holders(locks, "chg-1", ["R1", "R2"]) == []
    assert await holders(locks, "chg-2", ["R3", "R2", "R1"]) == ["R1:chg-1", "R2:chg-1"]
    # R3 was not taken by the refused attempt: another change can still lock it
    assert await holders(locks, "chg-3", ["R3"]) == []
    assert await holders(locks, "chg-1", ["R1", "R2"]) == []  # re-entrant
    await locks.release("chg-1", ["R1", "R2"])
    assert await holders(locks, "chg-2", ["R1", "R2"]) == []


async def test_an_expired_device_lock_is_taken_over(engine: AsyncEngine) -> None:
    locks = DeviceLockStore(engine)
    before = utc_now()
    assert await locks.acquire("chg-1", ["R1"], ttl_seconds=0.05) == []
    await asyncio.sleep(0.1)
    assert await holders(locks, "chg-2", ["R1"]) == []
    await locks.release("chg-1", ["R1"])  # the old holder's release must not free chg-2's lock
    [held] = await locks.acquire("chg-3", ["R1"], ttl_seconds=60)
    assert (held.device, held.change_id) == ("R1", "chg-2")
    assert held.expires_at > before + timedelta(seconds=59)  # chg-2's 60 s, as an aware time


HOLD_SECONDS = 1.0  # how long a holder waits for the other (the same key: all of it, twice)


async def test_thread_lock_serializes_resumes_of_one_thread(
    database_url: str, engine: AsyncEngine
) -> None:
    """Two holders (on PostgreSQL: two engines, like two replicas) never overlap on one key;
    another key is not blocked."""
    second = make_engine(database_url) if engine.dialect.name == "postgresql" else engine
    inside: list[str] = []
    overlaps: list[tuple[str, ...]] = []
    both = asyncio.Event()

    async def resume(eng: AsyncEngine, key: str, name: str) -> None:
        async with thread_lock(eng, key):
            inside.append(name)
            overlaps.append(tuple(inside))
            if len(inside) == 2:
                both.set()
            # hold until the other is inside too (it never is while the lock serialises): an
            # unblocked other key overlaps however slowly its engine connects
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(both.wait(), HOLD_SECONDS)
            inside.remove(name)

    try:
        await asyncio.gather(resume(engine, "t1", "a"), resume(second, "t1", "b"))
        assert sorted(overlaps) == [("a",), ("b",)]
        overlaps.clear()
        await asyncio.gather(resume(engine, "t1", "a"), resume(second, "t2", "b"))
        assert max(len(o) for o in overlaps) == 2
    finally:
        if second is not engine:
            await second.dispose()


async def test_many_held_thread_locks_do_not_starve_the_pool(engine: AsyncEngine) -> None:
    """More concurrent resumes than pooled connections: each holds its thread's lock while it
    reads through the pool (as a graph resume does); none may wait for a pooled connection."""
    resumes = 40  # the pool holds 10 + 10 overflow

    async def resume(n: int) -> int:
        async with thread_lock(engine, f"thread-{n}"), engine.connect() as conn:
            await asyncio.sleep(0.05)
            return int((await conn.execute(sa.text("SELECT 1"))).scalar_one())

    results = await asyncio.wait_for(asyncio.gather(*map(resume, range(resumes))), timeout=20)
    assert results == [1] * resumes
