"""Locks: devices held by one change at a time (with expiry), and per-thread resume locks.

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
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlalchemy.pool import NullPool

from base.vocabulary import as_utc, utc_now
from storage.db import PG_CONNECT_TIMEOUT_S, is_sqlite, serialized_transaction
from storage.schema import device_locks
from workflow.model import DeviceLock

__all__ = ["DeviceLockStore", "thread_lock"]

DEVICE_LOCK_KEY = 0x1AB_B07_003


class DeviceLockStore:
    """`workflow.ports.DeviceLocks` in the database, so every replica sees the same locks."""

    def __init__(self, engine: AsyncEngine, lab: str = "") -> None:
        """`lab`: the lab whose devices these are (a device is named within its lab; "": the
        settings' one lab)."""
        self.engine = engine
        self.lab = lab

    def _of(self, devices: Sequence[str]) -> sa.ColumnElement[bool]:
        return sa.and_(device_locks.c.lab == self.lab, device_locks.c.device.in_(list(devices)))

    async def acquire(
        self, change_id: str, devices: Sequence[str], ttl_seconds: float
    ) -> list[DeviceLock]:
        """Lock all `devices` for `change_id`, or none: returns [] or the locks others hold."""
        now = utc_now()
        wanted = sorted(set(devices))
        async with serialized_transaction(self.engine, DEVICE_LOCK_KEY) as conn:
            held = await conn.execute(
                sa.select(
                    device_locks.c.device, device_locks.c.change_id, device_locks.c.expires_at
                ).where(self._of(wanted))
            )
            busy = [
                DeviceLock(r.device, r.change_id, as_utc(r.expires_at))
                for r in held
                if r.change_id != change_id and as_utc(r.expires_at) > now
            ]
            if busy:
                return sorted(busy, key=lambda lock: lock.device)
            await conn.execute(sa.delete(device_locks).where(self._of(wanted)))
            expires = now + timedelta(seconds=ttl_seconds)
            rows = [
                {
                    "lab": self.lab,
                    "device": d,
                    "change_id": change_id,
                    "acquired_at": now,
                    "expires_at": expires,
                }
                for d in wanted
            ]
            if rows:
                await conn.execute(sa.insert(device_locks), rows)
        return []

    async def release(self, change_id: str, devices: Sequence[str]) -> None:
        """Release this change's locks; a lock another change took over is left alone."""
        async with self.engine.begin() as conn:
            await conn.execute(
                sa.delete(device_locks).where(
                    device_locks.c.change_id == change_id, self._of(devices)
                )
            )

    async def release_change(self, change_id: str) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(sa.delete(device_locks).where(device_locks.c.change_id == change_id))


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
