"""Engines, migrations and database errors: one clear line for a bad URL, old schemas upgraded,
concurrent SQLite writers losing nothing."""

from __future__ import annotations

import asyncio
import re
import socket
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic.script import ScriptDirectory
from langgraph.checkpoint.base import empty_checkpoint

from base.errors import StorageError
from base.vocabulary import utc_now
from storage import audit_chain
from storage.audit_records import DevicePush
from storage.audit_store import AuditStore
from storage.checkpointer import SQLAlchemySaver
from storage.db import (
    alembic_config,
    check_database,
    make_engine,
    schema_head,
    upgrade_database,
)
from storage.schema import changes
from tests.support.sealing import SEALING

HEAD = ScriptDirectory.from_config(alembic_config()).get_current_head()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_unreachable_postgres_is_one_clear_line() -> None:
    port = free_port()
    with pytest.raises(StorageError) as err:
        await check_database(f"postgresql+psycopg://labbot@127.0.0.1:{port}/labbot")
    assert str(err.value) == (
        f"cannot reach PostgreSQL at 127.0.0.1:{port}: connection refused — is the server running?"
    )


async def test_missing_postgres_database_says_how_to_create_it(postgres_url: str) -> None:
    url = sa.make_url(postgres_url).set(database="labbot_nope").render_as_string(False)
    with pytest.raises(StorageError, match=r"has no database 'labbot_nope' — create it"):
        await upgrade_database(url)


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("mysql://root@localhost/labbot", "uses 'mysql', which labbot does not support"),
        ("not a url", "is not a URL: use sqlite+aiosqlite:///"),
    ],
)
async def test_unsupported_or_malformed_url_is_refused(url: str, message: str) -> None:
    with pytest.raises(StorageError, match=re.escape(message)) as err:
        await check_database(url)
    assert "\n" not in str(err.value)


async def test_a_file_that_is_not_sqlite_is_named(tmp_path: Path) -> None:
    junk = tmp_path / "notes.txt"
    junk.write_text("this is not a database\n" * 100)
    with pytest.raises(StorageError, match=r"notes\.txt' is not a SQLite database"):
        await upgrade_database(f"sqlite:///{junk}")


async def test_sqlite_default_creates_its_directory_and_upgrades_to_head(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'data' / 'labbot.db'}"
    assert await check_database(url) is None  # reachable, not migrated yet
    assert await upgrade_database(url) == HEAD
    assert await upgrade_database(url) == HEAD  # idempotent
    assert await check_database(url) == HEAD
    engine = make_engine(url)
    async with engine.connect() as conn:
        assert (await conn.exec_driver_sql("PRAGMA journal_mode")).scalar() == "wal"
    await engine.dispose()


def test_the_schema_head_read_from_the_file_names_is_alembics() -> None:
    assert schema_head() == HEAD  # a migration named against the NNNN_what.py rule fails here


async def test_concurrent_upgrades_of_one_database_do_not_collide(database_url: str) -> None:
    assert await asyncio.gather(*(upgrade_database(database_url) for _ in range(4))) == [HEAD] * 4


async def test_a_database_from_the_first_schema_is_migrated_with_its_data(
    database_url: str,
) -> None:
    """Rows written under revision 0001 survive the upgrade and stay usable and verifiable."""
    assert await upgrade_database(database_url, "0001") == "0001"
    engine = make_engine(database_url)
    try:
        old_saver = SQLAlchemySaver(engine)  # the checkpoint tables already exist in 0001
        config: Any = {"configurable": {"thread_id": "t-old", "checkpoint_ns": ""}}
        checkpoint: Any = {
            **empty_checkpoint(),
            "channel_values": {"plan": {"devices": ["R1"]}},
            "channel_versions": {"plan": "1"},
        }
        stored = await old_saver.aput(config, checkpoint, {"step": 1}, {"plan": "1"})
        await old_saver.aclose()
        content = dict(
            change_id="chg-old",
            kind="change",
            rollback_of=None,
            thread_key="t-old",
            platform="console",
            channel="lab",
            requester_id="u1",
            requester_name="Old Timer",
            text="old request",
        )
        at = utc_now()
        digest = audit_chain.row_hash("changes", 1, at, audit_chain.GENESIS, content)
        async with engine.begin() as conn:  # what a 0001-era labbot wrote
            await conn.execute(
                sa.insert(changes),
                {
                    **content,
                    "seq": 1,
                    "at": at,
                    "prev_hash": audit_chain.GENESIS,
                    "row_hash": digest,
                },
            )

        assert await upgrade_database(database_url) == HEAD

        async with SQLAlchemySaver.from_url(database_url) as saver:
            restored = await saver.aget_tuple(stored)
        assert restored is not None
        assert restored.checkpoint["channel_values"] == {"plan": {"devices": ["R1"]}}
        audit = AuditStore(engine, chain=SEALING)
        await audit.record_change_event(change_id="chg-old", status="done")  # a 0002 table
        summary = await audit.change_summary("chg-old")
        assert summary is not None and summary.requester_name == "Old Timer"
        assert [e.status for e in summary.events] == ["done"]
        assert (await audit.verify()).ok
    finally:
        await engine.dispose()


async def test_concurrent_sqlite_writers_lose_nothing(tmp_path: Path) -> None:
    """Four engines (separate connection pools, as separate processes would have) write audit
    rows and checkpoints at once; every row arrives and the chain stays intact."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'busy.db'}"
    await upgrade_database(url)
    engines = [make_engine(url) for _ in range(4)]

    async def writer(n: int) -> None:
        audit, saver = AuditStore(engines[n], chain=SEALING), SQLAlchemySaver(engines[n])
        for i in range(15):
            await audit.record_pushes(
                f"chg-{n}",
                [DevicePush(device=f"R{i}", lines_sha256="0" * 64, status="success", detail="")],
            )
            config: Any = {"configurable": {"thread_id": f"t{n}", "checkpoint_ns": ""}}
            await saver.aput(config, empty_checkpoint(), {"step": i}, {})
        await saver.aclose()

    try:
        await asyncio.gather(*(writer(n) for n in range(4)))
        report = await AuditStore(engines[0], chain=SEALING).verify()
        assert (report.ok, report.rows) == (True, 60)
        async with engines[0].connect() as conn:
            assert (await conn.exec_driver_sql("SELECT count(*) FROM checkpoints")).scalar() == 60
    finally:
        for engine in engines:
            await engine.dispose()
