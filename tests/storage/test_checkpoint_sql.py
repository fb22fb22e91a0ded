"""The checkpointer's SQL on SQLite: a read costs the same however long the thread's history."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import sqlalchemy as sa
from langgraph.checkpoint.base import empty_checkpoint

from storage.checkpointer import SQLAlchemySaver

THREAD: Any = {"configurable": {"thread_id": "t-long", "checkpoint_ns": ""}}


async def grow(saver: SQLAlchemySaver, config: Any, steps: range) -> Any:
    """A checkpoint per step, each with a new value of `progress` (a blob per step)."""
    version = None
    for step in steps:
        version = saver.get_next_version(version, None)
        checkpoint: Any = {
            **empty_checkpoint(),
            "channel_versions": {"progress": version},
            "channel_values": {"progress": {"step": step}},
        }
        config = await saver.aput(config, checkpoint, {"step": step}, {"progress": version})
    return config


def sqlite_instructions(saver: SQLAlchemySaver, path: Path, limit: int) -> int:
    """How many SQLite VM instructions reading the thread's newest `limit` checkpoints takes."""
    engine = sa.create_engine(f"sqlite:///{path}")
    counted = [0]

    def tick() -> int:
        counted[0] += 1
        return 0  # go on

    try:
        with engine.connect() as conn:
            raw = conn.connection.driver_connection
            assert raw is not None
            raw.set_progress_handler(tick, 1)
            shape, params = saver.sql.plan(thread_id="t-long", ns="", limit=limit)
            rows = saver.sql.sqlite_fetch(conn, shape, params)
            raw.set_progress_handler(None, 1)
    finally:
        engine.dispose()
    assert len(saver.sql.decode(rows)) == limit
    return counted[0]


async def test_a_read_does_not_walk_the_threads_history(tmp_path: Path) -> None:
    """The newest checkpoints of a thread 200 steps long read with about the work they take at
    5 steps: their blobs are looked up by their whole key, not found among all the thread's."""
    path = tmp_path / "labbot.db"
    async with SQLAlchemySaver.from_url(f"sqlite+aiosqlite:///{path}") as saver:
        config = await grow(saver, THREAD, range(5))
        short = [sqlite_instructions(saver, path, limit) for limit in (1, 3)]
        await grow(saver, config, range(5, 200))
        long = [sqlite_instructions(saver, path, limit) for limit in (1, 3)]
        latest = await saver.aget_tuple(THREAD)
    assert latest is not None and latest.checkpoint["channel_values"] == {"progress": {"step": 199}}
    for before, after in zip(short, long, strict=True):
        assert after < 1.5 * before, (short, long)
