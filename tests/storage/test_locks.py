"""Device locks (all or nothing, expiry), configuration backups, per-thread resume locks."""

from __future__ import annotations

import asyncio

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from storage.db import make_engine
from storage.locks import ConfigBackupStore, DeviceLockStore, thread_lock


async def test_device_locks_are_all_or_nothing(engine: AsyncEngine) -> None:
    locks = DeviceLockStore(engine)
    assert await locks.acquire("chg-1", ["R1", "R2"], ttl_seconds=60) == {}
    assert await locks.acquire("chg-2", ["R2", "R3"], ttl_seconds=60) == {"R2": "chg-1"}
    # R3 was not taken by the refused attempt: another change can still lock it
    assert await locks.acquire("chg-3", ["R3"], ttl_seconds=60) == {}
    assert await locks.acquire("chg-1", ["R1", "R2"], ttl_seconds=60) == {}  # re-entrant
    await locks.release("chg-1", ["R1", "R2"])
    assert await locks.acquire("chg-2", ["R1", "R2"], ttl_seconds=60) == {}


async def test_an_expired_device_lock_is_taken_over(engine: AsyncEngine) -> None:
    locks = DeviceLockStore(engine)
    assert await locks.acquire("chg-1", ["R1"], ttl_seconds=0.05) == {}
    await asyncio.sleep(0.1)
    assert await locks.acquire("chg-2", ["R1"], ttl_seconds=60) == {}
    await locks.release("chg-1", ["R1"])  # the old holder's release must not free chg-2's lock
    assert await locks.acquire("chg-3", ["R1"], ttl_seconds=60) == {"R1": "chg-2"}


async def test_backups_keep_before_and_after_per_device(engine: AsyncEngine) -> None:
    backups = ConfigBackupStore(engine)
    await backups.save_config("chg-1", "R1", "before", "hostname R1\n")
    await backups.save_config("chg-1", "R2", "before", "hostname R2\n")
    await backups.save_config("chg-1", "R1", "after", "hostname R1\nrouter ospf 1\n")
    await backups.save_config("chg-1", "R1", "before", "hostname R1 (retried)\n")
    assert await backups.configs("chg-1", "before") == {
        "R1": "hostname R1 (retried)\n",
        "R2": "hostname R2\n",
    }
    assert await backups.configs("chg-1", "after") == {"R1": "hostname R1\nrouter ospf 1\n"}
    assert await backups.configs("chg-2", "before") == {}


async def test_thread_lock_serializes_resumes_of_one_thread(
    database_url: str, engine: AsyncEngine
) -> None:
    """Two holders (on PostgreSQL: two engines, like two replicas) never overlap on one key;
    another key is not blocked."""
    second = make_engine(database_url) if engine.dialect.name == "postgresql" else engine
    inside: list[str] = []
    overlaps: list[tuple[str, ...]] = []

    async def resume(eng: AsyncEngine, key: str, name: str) -> None:
        async with thread_lock(eng, key):
            inside.append(name)
            overlaps.append(tuple(inside))
            await asyncio.sleep(0.05)
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
