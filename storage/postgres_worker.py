"""A few PostgreSQL connections that run a saver's statements, those queued together in one go.

Through SQLAlchemy every statement costs a pool checkout, a greenlet switch and a round trip of
its own. The worker keeps a few psycopg connections (lanes); a lane takes what is queued and sends
it in pipeline mode inside one transaction: one round trip and one commit for all of them (group
commit, as storage.sqlite_worker does for SQLite). While one lane's batch is on the wire, the next
lane sends what arrived meanwhile, so the server works on several batches at once (one
connection made every batch wait for the one before) and a slow statement holds up only its own
batch. Statements are prepared by psycopg after a few uses. Every caller gets its rows only after
the commit. If a batch fails, its statements run again one by one, so only the one at fault sees
the error; when the failure was a dropped connection (server restart, failover), they run on a
new one (every statement is idempotent).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg.rows import namedtuple_row
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from storage.sqlite_worker import settle

MAX_BATCH = 64
LANES = 4  # connections; more lanes than the server has cores only adds waiting


@dataclass(frozen=True)
class Statement:
    """SQL text in psycopg's `%(name)s` style, its parameters, and whether it returns rows."""

    sql: str
    params: dict[str, Any]
    returns_rows: bool = False


@dataclass
class _Job:
    statement: Statement
    future: asyncio.Future[Any]


class PostgresWorker:
    """Runs `Statement`s on up to `lanes` connections borrowed from `engine` (AUTOCOMMIT)."""

    def __init__(self, engine: AsyncEngine, *, lanes: int = LANES) -> None:
        self.engine = engine
        self._jobs: asyncio.Queue[_Job] = asyncio.Queue()
        self._lanes = [_Lane(engine) for _ in range(lanes)]
        self._tasks: list[asyncio.Task[None]] = []
        self._closed = False

    async def run(self, statement: Statement) -> list[Any] | None:
        """The statement's rows (None when it returns none), once its batch is committed."""
        if self._closed:
            raise RuntimeError("the PostgreSQL worker is closed: the saver was closed")
        if not self._tasks:
            self._tasks = [
                asyncio.create_task(self._serve(lane), name=f"postgres-saver-{n}")
                for n, lane in enumerate(self._lanes)
            ]
        job = _Job(statement, asyncio.get_running_loop().create_future())
        self._jobs.put_nowait(job)
        rows: list[Any] | None = await job.future
        return rows

    async def close(self) -> None:
        """Finish the queued work, then give the connections back."""
        self._closed = True
        if self._tasks:
            await self._jobs.join()
            for task in self._tasks:
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)
        for lane in self._lanes:
            await lane.close()

    async def _serve(self, lane: _Lane) -> None:
        while True:
            batch = [await self._jobs.get()]
            while len(batch) < MAX_BATCH and not self._jobs.empty():
                batch.append(self._jobs.get_nowait())
            try:
                outcomes = await lane.run_batch([job.statement for job in batch])
            except Exception as exc:  # no connection at all: every caller hears why
                outcomes = [exc] * len(batch)
            for job, outcome in zip(batch, outcomes, strict=True):
                settle(job.future, outcome)
                self._jobs.task_done()


class _Lane:
    """One connection borrowed from the engine's pool, opened on first use, replaced if broken."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self._borrowed: AsyncConnection | None = None

    async def close(self) -> None:
        if self._borrowed is not None:
            await self._borrowed.close()
            self._borrowed = None

    async def run_batch(self, statements: Sequence[Statement]) -> list[Any]:
        try:
            return await self._pipeline(await self._driver(), statements)
        except psycopg.Error as exc:
            await self._replace_if_broken(exc)  # e.g. the server restarted: all are idempotent
            return await self._one_by_one(statements)

    async def _one_by_one(self, statements: Sequence[Statement]) -> list[Any]:
        outcomes: list[Any] = []
        for statement in statements:
            try:
                (rows,) = await self._pipeline(await self._driver(), [statement])
                outcomes.append(rows)
            except psycopg.Error as exc:
                outcomes.append(exc)
                await self._replace_if_broken(exc)
        return outcomes

    @staticmethod
    async def _pipeline(
        conn: psycopg.AsyncConnection[Any], statements: Sequence[Statement]
    ) -> list[list[Any] | None]:
        """All statements in one transaction, sent in one pipeline: one round trip."""
        cursors = []
        async with conn.pipeline(), conn.transaction():
            for statement in statements:
                cursor = conn.cursor(row_factory=namedtuple_row, binary=True)
                await cursor.execute(statement.sql, statement.params)
                cursors.append(cursor)
        return [
            await cursor.fetchall() if statement.returns_rows else None
            for cursor, statement in zip(cursors, statements, strict=True)
        ]

    async def _driver(self) -> psycopg.AsyncConnection[Any]:
        """The psycopg connection under the one borrowed from the engine's pool."""
        if self._borrowed is None:
            self._borrowed = await self.engine.connect()
        raw = await self._borrowed.get_raw_connection()
        driver: psycopg.AsyncConnection[Any] = raw.driver_connection  # type: ignore[assignment]
        return driver

    async def _replace_if_broken(self, exc: psycopg.Error) -> None:
        """Throw the connection away if the server is gone, so the next use opens a new one: it
        says it is broken, or the failure was the connection's (a server that restarted while
        the connection was idle is told only by the next statement's OperationalError). The
        pool's idle connections died with it: the next one is opened afresh, not taken from
        them (the engine pings none before lending it)."""
        if self._borrowed is None:
            return
        if not (await self._driver()).broken and not isinstance(exc, psycopg.OperationalError):
            return
        await self._borrowed.invalidate()
        await self._borrowed.close()
        self._borrowed = None
        await self.engine.dispose()
