"""A few PostgreSQL connections that run a saver's statements, those queued together in one go.

Through SQLAlchemy every statement costs a pool checkout, a greenlet switch and a round trip of
its own. The worker keeps a few psycopg connections (lanes); a lane takes what is queued and sends
it as one piece of work. Queued statements of one SQL text marked `mergeable` (their parameters
are arrays, one element or more per statement) become one statement, their arrays joined: eight
graph threads putting at once are one INSERT, not eight, so the server is woken, plans and runs
once (under a loaded CPU every wake-up waits for a core). One statement left goes alone, in
autocommit; several go in pipeline mode inside one transaction: one commit for all of them (group
commit, as storage.sqlite_worker does for SQLite). While one lane's batch is on the wire, the next
lane sends what arrived meanwhile, so the server works on several batches at once and a slow
statement holds up only its own batch. Statements are prepared by psycopg after a few uses. Every
caller gets its rows only after the commit. If a batch fails, its statements run again one by one
(unmerged), so only the one at fault sees the error; when the failure was a dropped connection
(server restart, failover), they run on a new one (every statement is idempotent).
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
    # may run merged with others of the same `sql`: every parameter is an array and, if it
    # returns rows, each row has `n`, the 1-based position of the statement it answers
    mergeable: bool = False


def merged(statements: Sequence[Statement]) -> Statement:
    """One statement doing the work of `statements` (one mergeable SQL text): arrays joined.
    Raises ValueError if they differ in their parameters' names or one is not a list."""
    if len(statements) == 1:
        return statements[0]
    first = statements[0]
    for statement in statements:
        if statement.params.keys() != first.params.keys():
            raise ValueError("statements merged must have the same parameters")
        if not all(isinstance(value, list) for value in statement.params.values()):
            raise ValueError("every parameter of a mergeable statement must be a list")
    params = {name: [v for s in statements for v in s.params[name]] for name in first.params}
    return Statement(first.sql, params, first.returns_rows, mergeable=True)


def split(rows: list[Any] | None, count: int) -> list[list[Any] | None]:
    """The rows of a merged statement, given back to each statement merged (by `row.n`).
    Raises ValueError if a row's `n` names none of them."""
    if rows is None or count == 1:
        return [rows] * count
    parts: list[list[Any]] = [[] for _ in range(count)]
    for row in rows:
        n = getattr(row, "n", None)
        if not isinstance(n, int) or not 1 <= n <= count:
            raise ValueError(f"a merged statement's row answers no statement: n = {n!r}")
        parts[n - 1].append(row)
    return list(parts)


def grouped(statements: Sequence[Statement]) -> list[list[int]]:
    """The statements' positions in groups to run merged: mergeable ones by SQL text, others
    alone."""
    groups: dict[object, list[int]] = {}
    for n, statement in enumerate(statements):
        groups.setdefault(statement.sql if statement.mergeable else n, []).append(n)
    return list(groups.values())


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
        """Each statement's rows (None if it returns none) or the error it met, in order."""
        groups = grouped(statements)
        try:
            batch = [merged([statements[n] for n in group]) for group in groups]
            results = await self._send(await self._driver(), batch)
            answers: list[Any] = [None] * len(statements)
            for group, rows in zip(groups, results, strict=True):
                for n, part in zip(group, split(rows, len(group)), strict=True):
                    answers[n] = part
        except psycopg.Error as exc:
            await self._replace_if_broken(exc)  # e.g. the server restarted: all are idempotent
            return await self._one_by_one(statements)
        except ValueError:  # statements that cannot be merged, or rows that answer none
            return await self._one_by_one(statements)
        return answers

    async def _one_by_one(self, statements: Sequence[Statement]) -> list[Any]:
        outcomes: list[Any] = []
        for statement in statements:
            try:
                (rows,) = await self._send(await self._driver(), [statement])
                outcomes.append(rows)
            except psycopg.Error as exc:
                outcomes.append(exc)
                await self._replace_if_broken(exc)
        return outcomes

    @staticmethod
    async def _send(
        conn: psycopg.AsyncConnection[Any], statements: Sequence[Statement]
    ) -> list[list[Any] | None]:
        """One statement alone (autocommit: it is atomic by itself), or several in one
        transaction sent in one pipeline."""
        if len(statements) == 1:
            (statement,) = statements
            cursor = conn.cursor(row_factory=namedtuple_row, binary=True)
            await cursor.execute(statement.sql, statement.params)
            return [await cursor.fetchall() if statement.returns_rows else None]
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
