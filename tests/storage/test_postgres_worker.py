"""The PostgreSQL worker: queued statements share one transaction, those of one mergeable SQL
text run as one statement, one failure stays its own, a statement that waits holds up no other
lane, and a connection the server dropped is replaced."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

import psycopg
import pytest
import sqlalchemy as sa

from storage.db import make_engine
from storage.postgres_worker import PostgresWorker, Statement
from tests.support.postgres import fresh_postgres_database

pytestmark = pytest.mark.postgres


def insert(n: int) -> Statement:
    """Inserts n and returns the id of the transaction it ran in (n = 13 divides by zero)."""
    return Statement(
        "INSERT INTO rows (n) VALUES (%(n)s / CASE WHEN %(n)s = 13 THEN 0 ELSE 1 END) "
        "RETURNING pg_current_xact_id()::text AS xact",
        {"n": n},
        returns_rows=True,
    )


def tenfold(v: int) -> Statement:
    """Mergeable: each value given comes back times ten (13 divides by zero); every run of the
    statement counts one in `runs`."""
    return Statement(
        "WITH run AS (UPDATE runs SET count = count + 1 RETURNING count) "
        "SELECT given.n, given.v * 10 / CASE WHEN given.v = 13 THEN 0 ELSE 1 END AS tenfold "
        "FROM unnest(%(v)s::int[]) WITH ORDINALITY AS given(v, n), run",
        {"v": [v]},
        returns_rows=True,
        mergeable=True,
    )


@pytest.fixture
async def worker(postgres_url: str) -> AsyncIterator[PostgresWorker]:
    async with fresh_postgres_database(postgres_url) as url:
        engine = make_engine(url, autocommit=True)
        async with engine.connect() as conn:
            await conn.exec_driver_sql("CREATE TABLE rows (n INTEGER)")
            await conn.exec_driver_sql("CREATE TABLE runs (count INTEGER)")
            await conn.exec_driver_sql("INSERT INTO runs VALUES (0)")
        worker = PostgresWorker(engine)
        yield worker
        await worker.close()
        await engine.dispose()


async def behind_a_slow_one(
    worker: PostgresWorker, numbers: range, make: Callable[[int], Statement] = insert
) -> list[Any]:
    slow = Statement("SELECT pg_sleep(0.3), pg_current_xact_id()::text AS xact", {}, True)
    first = asyncio.ensure_future(worker.run(slow))
    await asyncio.sleep(0.1)  # the slow one is on the wire; the others wait in the queue
    rest = await asyncio.gather(*(worker.run(make(n)) for n in numbers), return_exceptions=True)
    return [await first, *rest]


async def runs(worker: PostgresWorker) -> int:
    (row,) = await worker.run(Statement("SELECT count FROM runs", {}, returns_rows=True)) or []
    count: int = row.count
    return count


async def stored(worker: PostgresWorker) -> list[int]:
    rows = await worker.run(Statement("SELECT n FROM rows ORDER BY n", {}, returns_rows=True))
    return [row.n for row in rows or []]


async def test_queued_statements_share_one_transaction(worker: PostgresWorker) -> None:
    results = await behind_a_slow_one(worker, range(1, 13))
    transactions = [rows[0].xact for rows in results]
    assert transactions[0] != transactions[1]  # the slow one went alone
    assert len(set(transactions[1:])) == 1  # the twelve that queued behind it went together
    assert await stored(worker) == list(range(1, 13))


async def test_a_failure_in_a_batch_fails_only_its_own_caller(worker: PostgresWorker) -> None:
    results = await behind_a_slow_one(worker, range(10, 17))
    errors = [type(r) for r in results if isinstance(r, Exception)]
    assert errors == [psycopg.errors.DivisionByZero]
    assert isinstance(results[4], psycopg.errors.DivisionByZero)  # 13's own caller
    assert await stored(worker) == [10, 11, 12, 14, 15, 16]


async def test_queued_mergeable_statements_run_as_one(worker: PostgresWorker) -> None:
    results = await behind_a_slow_one(worker, range(1, 9), tenfold)
    assert [[row.tenfold for row in rows] for rows in results[1:]] == [
        [v * 10] for v in range(1, 9)
    ]
    assert await runs(worker) == 1  # eight callers, one statement


async def test_a_failure_in_a_merged_statement_fails_only_its_own_caller(
    worker: PostgresWorker,
) -> None:
    results = await behind_a_slow_one(worker, range(10, 17), tenfold)
    assert isinstance(results[4], psycopg.errors.DivisionByZero)  # 13's own caller
    others = [rows for n, rows in enumerate(results[1:], start=10) if n != 13]
    assert [[row.tenfold for row in rows] for rows in others] == [
        [100],
        [110],
        [120],
        [140],
        [150],
        [160],
    ]
    assert await runs(worker) == 6  # merged, failed and rolled back; then each alone


async def test_work_is_committed_when_the_caller_hears_of_it(worker: PostgresWorker) -> None:
    await worker.run(insert(7))
    other = make_engine(worker.engine.url.render_as_string(hide_password=False))
    async with other.connect() as conn:
        assert (await conn.execute(sa.text("SELECT n FROM rows"))).scalars().all() == [7]
    await other.dispose()


async def test_a_waiting_statement_holds_up_no_other_lane(worker: PostgresWorker) -> None:
    other = make_engine(worker.engine.url.render_as_string(hide_password=False))
    async with other.connect() as holder:
        await holder.exec_driver_sql("SELECT pg_advisory_lock(42)")
        blocked = asyncio.ensure_future(
            worker.run(Statement("SELECT pg_advisory_xact_lock(42)", {}))
        )
        await asyncio.sleep(0.1)  # the blocked one is on the wire, waiting for the lock
        await worker.run(insert(5))  # another lane runs it meanwhile
        assert not blocked.done()
        await holder.exec_driver_sql("SELECT pg_advisory_unlock(42)")
        await blocked
    await other.dispose()
    assert await stored(worker) == [5]


async def test_a_dropped_connection_is_replaced(worker: PostgresWorker) -> None:
    await worker.run(insert(1))
    other = make_engine(worker.engine.url.render_as_string(hide_password=False))
    async with other.connect() as conn:
        killed = await conn.exec_driver_sql(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        assert killed.scalar() == 1  # the worker's connection
    await other.dispose()
    await worker.run(insert(2))
    assert await stored(worker) == [1, 2]


async def test_a_closed_worker_takes_no_more_work(worker: PostgresWorker) -> None:
    await worker.close()
    with pytest.raises(RuntimeError, match="closed"):
        await worker.run(insert(1))


def malformed(v: int) -> Statement:
    """`tenfold`, except 2 gives its value as text and 4 under another name (not arrays of
    `v`: they cannot be merged with the others)."""
    if v == 2:
        return Statement(tenfold(v).sql, {"v": "2"}, returns_rows=True, mergeable=True)
    if v == 4:
        return Statement(tenfold(v).sql, {"w": [4]}, returns_rows=True, mergeable=True)
    return tenfold(v)


async def test_a_malformed_statement_fails_only_its_own_caller(worker: PostgresWorker) -> None:
    results = await behind_a_slow_one(worker, range(1, 7), malformed)
    assert isinstance(results[2], psycopg.errors.InvalidTextRepresentation)  # "2", not [2]
    assert isinstance(results[4], psycopg.ProgrammingError)  # no `v`
    others = [rows for n, rows in enumerate(results[1:], start=1) if n not in (2, 4)]
    assert [[row.tenfold for row in rows] for rows in others] == [[10], [30], [50], [60]]


async def test_rows_that_answer_no_statement_fail_no_caller(worker: PostgresWorker) -> None:
    """Mergeable statements whose rows lack `n`: run one by one, each caller gets its rows."""

    def count(v: int) -> Statement:
        sql = "SELECT count(*) AS given FROM unnest(%(v)s::int[])"
        return Statement(sql, {"v": [v]}, returns_rows=True, mergeable=True)

    results = await behind_a_slow_one(worker, range(3), count)
    assert [[row.given for row in rows] for rows in results[1:]] == [[1], [1], [1]]


async def test_the_same_statement_queued_twice_answers_both(worker: PostgresWorker) -> None:
    await worker.run(Statement("CREATE SEQUENCE numbers", {}))
    twice = Statement("SELECT nextval('numbers') AS number", {}, returns_rows=True)
    results = await behind_a_slow_one(worker, range(2), lambda _: twice)
    assert sorted(rows[0].number for rows in results[1:]) == [1, 2]  # two runs, each heard
