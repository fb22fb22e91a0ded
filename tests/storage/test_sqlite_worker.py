"""The SQLite worker: queued operations share one commit, and one failure stays its own."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from storage.sqlite_worker import SQLiteWorker

ROWS = sa.table("rows", sa.column("n"))


def insert(conn: sa.Connection, n: int) -> int:
    if n == 13:
        raise ValueError("unlucky row")
    conn.execute(sa.insert(ROWS).values(n=n))
    return n


def slow_insert(conn: sa.Connection, n: int) -> int:
    time.sleep(0.2)  # keeps the worker busy while the others queue up
    return insert(conn, n)


@pytest.fixture
async def worker(tmp_path: Path) -> AsyncIterator[tuple[SQLiteWorker, list[int]]]:
    engine = sa.create_engine(f"sqlite:///{tmp_path / 'w.db'}")
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE rows (n INTEGER)")
    commits: list[int] = []
    sa.event.listen(engine, "commit", lambda _conn: commits.append(1))
    worker = SQLiteWorker(engine)
    yield worker, commits
    await worker.close()


async def behind_a_slow_one(worker: SQLiteWorker, numbers: range) -> list[Any]:
    first = asyncio.ensure_future(worker.run(slow_insert, 0))
    await asyncio.sleep(0.05)  # the slow one is running; the others wait in the queue
    rest = await asyncio.gather(*(worker.run(insert, n) for n in numbers), return_exceptions=True)
    return [await first, *rest]


async def stored(worker: SQLiteWorker) -> list[int]:
    def read(conn: sa.Connection) -> list[int]:
        return sorted(n for (n,) in conn.exec_driver_sql("SELECT n FROM rows"))

    return list(await worker.run(read))


async def test_queued_operations_share_one_commit(worker: tuple[SQLiteWorker, list[int]]) -> None:
    runner, commits = worker
    assert await behind_a_slow_one(runner, range(1, 13)) == list(range(13))
    assert len(commits) == 2  # the slow one, then the twelve that queued behind it
    assert await stored(runner) == list(range(13))


async def test_a_failure_in_a_batch_fails_only_its_own_caller(
    worker: tuple[SQLiteWorker, list[int]],
) -> None:
    runner, _ = worker
    results = await behind_a_slow_one(runner, range(10, 17))
    assert [r.args if isinstance(r, Exception) else r for r in results] == [
        0, 10, 11, 12, ("unlucky row",), 14, 15, 16,
    ]  # fmt: skip
    assert await stored(runner) == [0, 10, 11, 12, 14, 15, 16]


async def test_a_closed_worker_takes_no_more_work(worker: tuple[SQLiteWorker, list[int]]) -> None:
    runner, _ = worker
    await runner.close()
    with pytest.raises(RuntimeError, match="closed"):
        await runner.run(insert, 1)


async def test_a_file_that_cannot_be_opened_is_each_caller_s_error(tmp_path: Path) -> None:
    """The worker's connection opens with the first work: a file it cannot open is that work's
    error (and the next's), not a caller left waiting."""
    worker = SQLiteWorker(sa.create_engine(f"sqlite:///{tmp_path / 'missing' / 'w.db'}"))
    for _ in range(2):
        with pytest.raises(sa.exc.OperationalError, match="unable to open database file"):
            await asyncio.wait_for(worker.run(insert, 1), 30)
    await worker.close()
