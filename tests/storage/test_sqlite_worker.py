"""The SQLite worker: concurrent operations share one commit, and one failure stays its own."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

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


async def test_queued_operations_commit_together_and_a_failure_is_isolated(tmp_path: Path) -> None:
    engine = sa.create_engine(f"sqlite:///{tmp_path / 'w.db'}")
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE rows (n INTEGER)")
    commits: list[int] = []
    sa.event.listen(engine, "commit", lambda _conn: commits.append(1))
    worker = SQLiteWorker(engine)
    try:
        first = asyncio.ensure_future(worker.run(slow_insert, 0))
        await asyncio.sleep(0.05)  # the slow one is running; the next 20 wait in the queue
        rest = await asyncio.gather(
            *(worker.run(insert, n) for n in range(1, 21)), return_exceptions=True
        )
        assert await first == 0
    finally:
        await worker.close()
    assert next(r for r in rest if not isinstance(r, int)).args == ("unlucky row",)
    assert [r for r in rest if isinstance(r, int)] == [n for n in range(1, 21) if n != 13]
    with sa.create_engine(f"sqlite:///{tmp_path / 'w.db'}").connect() as conn:
        stored = sorted(n for (n,) in conn.exec_driver_sql("SELECT n FROM rows"))
    assert stored == [n for n in range(21) if n != 13]
    # 1 for the slow one, then the failed batch of 20 rolled back and replayed one by one
    assert len(commits) == 1 + 19

    with pytest.raises(RuntimeError):
        await worker.run(insert, 99)  # a closed worker takes no more work
