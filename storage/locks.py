"""Device locks with expiry, configuration backups, and per-thread resume locks.

A device has one open change at a time (`DeviceLockStore`, all or nothing; a lock past its expiry
is taken over). `thread_lock` makes resumes of one LangGraph thread run one after the other: a
PostgreSQL session advisory lock shared by every replica, or an in-process lock on SQLite (one
process owns an embedded database).
"""

from __future__ import annotations

import asyncio
import hashlib
import weakref
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from datetime import timedelta

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlalchemy.pool import NullPool

from storage.audit_chain import as_utc, utc_now
from storage.db import PG_CONNECT_TIMEOUT_S, is_sqlite, serialized_transaction
from storage.schema import config_backups, device_locks

DEVICE_LOCK_KEY = 0x1AB_B07_003
STAGES = ("before", "after")


class DeviceLockStore:
    """`workflow.ports.DeviceLocks` in the database, so every replica sees the same locks."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def acquire(
        self, change_id: str, devices: Sequence[str], ttl_seconds: float
    ) -> dict[str, str]:
        """Lock all `devices` for `change_id`, or none: returns {} or {device: holder}."""
        now = utc_now()
        wanted = sorted(set(devices))
        async with serialized_transaction(self.engine, DEVICE_LOCK_KEY) as conn:
            held = await conn.execute(
                sa.select(
                    device_locks.c.device, device_locks.c.change_id, device_locks.c.expires_at
                ).where(device_locks.c.device.in_(wanted))
            )
            busy = {
                r.device: r.change_id
                for r in held
                if r.change_id != change_id and as_utc(r.expires_at) > now
            }
            if busy:
                return busy
            await conn.execute(sa.delete(device_locks).where(device_locks.c.device.in_(wanted)))
            expires = now + timedelta(seconds=ttl_seconds)
            rows = [
                {"device": d, "change_id": change_id, "acquired_at": now, "expires_at": expires}
                for d in wanted
            ]
            if rows:
                await conn.execute(sa.insert(device_locks), rows)
        return {}

    async def release(self, change_id: str, devices: Sequence[str]) -> None:
        """Release this change's locks; a lock another change took over is left alone."""
        async with self.engine.begin() as conn:
            await conn.execute(
                sa.delete(device_locks).where(
                    device_locks.c.change_id == change_id, device_locks.c.device.in_(list(devices))
                )
            )


class ConfigBackupStore:
    """`workflow.ports.BackupStore`: running configs captured before and after a push."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self._insert = sqlite.insert if is_sqlite(engine) else postgresql.insert

    async def save_config(self, change_id: str, device: str, stage: str, config: str) -> None:
        """Save (or replace, when a capture is retried) one device's config at `stage`."""
        if stage not in STAGES:
            raise ValueError(f"stage must be one of {STAGES}, not {stage!r}")
        row = {"change_id": change_id, "device": device, "stage": stage, "config": config}
        upsert = self._insert(config_backups).values(**row, captured_at=utc_now())
        upsert = upsert.on_conflict_do_update(
            index_elements=["change_id", "device", "stage"],
            set_={"config": upsert.excluded.config, "captured_at": upsert.excluded.captured_at},
        )
        async with self.engine.begin() as conn:
            await conn.execute(upsert)

    async def configs(self, change_id: str, stage: str) -> dict[str, str]:
        query = sa.select(config_backups.c.device, config_backups.c.config).where(
            config_backups.c.change_id == change_id, config_backups.c.stage == stage
        )
        async with self.engine.connect() as conn:
            return {r.device: r.config for r in await conn.execute(query)}


_local_locks: weakref.WeakKeyDictionary[
    AsyncEngine, weakref.WeakValueDictionary[str, asyncio.Lock]
] = weakref.WeakKeyDictionary()


def _advisory_key(key: str) -> int:
    """A signed 64-bit advisory lock id for `key` (sha256, so keys do not collide in practice)."""
    return int.from_bytes(
        hashlib.sha256(b"labbot-thread:" + key.encode()).digest()[:8], "big", signed=True
    )


_lock_engines: weakref.WeakKeyDictionary[AsyncEngine, AsyncEngine] = weakref.WeakKeyDictionary()


def _lock_engine(engine: AsyncEngine) -> AsyncEngine:
    """Connections that hold advisory locks come from outside the engine's pool.

    A resume holds its thread's lock while the graph reads and writes checkpoints through the
    pool; were the lock connections pooled too, enough concurrent resumes would take every pooled
    connection and wait forever for one more.
    """
    if engine not in _lock_engines:
        _lock_engines[engine] = create_async_engine(
            engine.url, poolclass=NullPool, connect_args={"connect_timeout": PG_CONNECT_TIMEOUT_S}
        )
    return _lock_engines[engine]


@asynccontextmanager
async def thread_lock(engine: AsyncEngine, key: str) -> AsyncIterator[None]:
    """Hold the resume lock of thread `key` (waits while another holder resumes it)."""
    if is_sqlite(engine):
        locks = _local_locks.setdefault(engine, weakref.WeakValueDictionary())
        lock = locks.get(key)
        if lock is None:
            lock = locks[key] = asyncio.Lock()
        async with lock:
            yield
        return
    lock_id = _advisory_key(key)
    async with _lock_engine(engine).connect() as conn:
        await conn.execute(sa.text("SELECT pg_advisory_lock(:id)"), {"id": lock_id})
        await conn.commit()  # the session lock outlives the transaction; don't sit idle in one
        try:
            yield
        finally:
            await conn.execute(sa.text("SELECT pg_advisory_unlock(:id)"), {"id": lock_id})
            await conn.commit()
