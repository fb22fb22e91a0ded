"""Which failures are "the database is unreachable" (told to users as a database outage): what
the drivers raise for a stopped or refusing server, never a ConnectionError of something else."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
import sqlalchemy as sa

from storage.db import is_unreachable, make_engine
from tests.support.postgres import own_postgres_cluster


async def test_a_connection_error_of_something_else_is_not_the_database(database_url: str) -> None:
    """A device's connection dropping inside a session block, on either backend."""
    engine = make_engine(database_url)
    try:
        with pytest.raises(ConnectionResetError) as dropped:
            async with engine.begin() as conn:
                await conn.execute(sa.text("SELECT 1"))
                raise ConnectionResetError("R1: connection reset by peer")
    finally:
        await engine.dispose()
    assert not is_unreachable(dropped.value)
    wrapped = RuntimeError("push failed")
    wrapped.__cause__ = ConnectionRefusedError("chat API refused")
    assert not is_unreachable(wrapped)


@pytest.mark.postgres
async def test_a_postgres_that_answered_is_not_unreachable(postgres_url: str) -> None:
    """An OperationalError from a server that is there (a statement timeout, SQLSTATE 57014)."""
    engine = make_engine(postgres_url)
    try:
        with pytest.raises(sa.exc.OperationalError) as cancelled:
            async with engine.connect() as conn:
                await conn.execute(sa.text("SET statement_timeout = 10"))
                await conn.execute(sa.text("SELECT pg_sleep(2)"))
    finally:
        await engine.dispose()
    assert not is_unreachable(cancelled.value)


@pytest.mark.postgres
async def test_a_stopped_postgres_is_unreachable() -> None:
    """The real server stopped: the pooled connection dropped, then a new one refused."""
    async with own_postgres_cluster() as cluster:
        engine = make_engine(cluster.url, pre_ping=False)
        try:
            async with engine.connect() as conn:
                await conn.execute(sa.text("SELECT 1"))
            await cluster.stop()
            with pytest.raises(sa.exc.DBAPIError) as dropped:
                async with engine.connect() as conn:
                    await conn.execute(sa.text("SELECT 1"))
            with pytest.raises(sa.exc.DBAPIError) as refused:
                async with engine.connect() as conn:
                    await conn.execute(sa.text("SELECT 1"))
        finally:
            await engine.dispose()
    assert is_unreachable(dropped.value)
    assert is_unreachable(refused.value)
    after_stop = RuntimeError("resume failed")  # raised while handling it: found in the chain
    after_stop.__context__ = dropped.value
    assert is_unreachable(after_stop)


def test_sqlite_busy_past_its_timeout_is_unreachable_a_missing_table_is_not(
    tmp_path: Path,
) -> None:
    path = tmp_path / "locked.db"
    holder, waiter = sqlite3.connect(path, timeout=0), sqlite3.connect(path, timeout=0)
    try:
        holder.execute("BEGIN IMMEDIATE")
        with pytest.raises(sqlite3.OperationalError) as locked:
            waiter.execute("BEGIN IMMEDIATE")
        with pytest.raises(sqlite3.OperationalError) as missing:
            waiter.execute("SELECT * FROM nowhere")
    finally:
        holder.close()
        waiter.close()
    assert is_unreachable(locked.value)
    assert not is_unreachable(missing.value)
