"""Benchmark: SQLAlchemySaver against the official LangGraph savers, same workload, one run.

    .venv/bin/python bench/checkpointer.py [--threads 8] [--steps 40]

Each simulated graph thread does, per step: put a checkpoint (a changing dict channel, a counter
and a short text), put two writes, get the latest tuple, list the last three checkpoints. Threads
run concurrently (asyncio.gather), as a bot serving several chat threads does. SQLite is compared
with langgraph-checkpoint-sqlite's AsyncSqliteSaver; PostgreSQL with AsyncPostgresSaver when
LABBOT_TEST_POSTGRES_URL points at a server (each saver gets a fresh database).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from langgraph.checkpoint.base import BaseCheckpointSaver, empty_checkpoint
from langgraph.checkpoint.base.id import uuid6
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from storage.checkpointer import SQLAlchemySaver
from storage.db import make_engine, parse_url

SaverFactory = Callable[[], AbstractAsyncContextManager[BaseCheckpointSaver[Any]]]
OPS_PER_STEP = 4


async def run_thread(saver: BaseCheckpointSaver[Any], thread_id: str, steps: int) -> None:
    config: Any = config_for(thread_id)
    checkpoint = empty_checkpoint()
    versions: dict[str, Any] = {}
    for step in range(steps):
        values = {
            "proposal": {"template": "router ospf 1\n network {{ net }} area 0\n" * 8, "n": step},
            "step": step,
            "text": f"configure OSPF area 0 on all routers ({thread_id})",
        }
        changed = ["proposal", "step"] if step else list(values)
        for channel in changed:
            versions[channel] = saver.get_next_version(versions.get(channel), None)
        checkpoint = {
            **checkpoint,
            "id": str(uuid6(clock_seq=step)),
            "channel_values": values,
            "channel_versions": dict(versions),
            "versions_seen": {"agent": dict(versions)},
        }
        metadata: Any = {"source": "loop", "step": step, "parents": {}}
        config = await saver.aput(config, checkpoint, metadata, {c: versions[c] for c in changed})
        await saver.aput_writes(config, [("proposal", {"n": step}), ("step", step)], f"task-{step}")
        assert await saver.aget_tuple(
            {"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}}
        )
        found = [t async for t in saver.alist(config_for(thread_id), limit=3)]
        assert found


def config_for(thread_id: str) -> Any:
    return {"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}}


async def measure(factory: SaverFactory, threads: int, steps: int) -> float:
    """ops/s of one run on a fresh database."""
    async with factory() as saver:
        await run_thread(saver, "warm-up", 3)
        started = time.perf_counter()
        await asyncio.gather(*(run_thread(saver, f"t{i}", steps) for i in range(threads)))
        elapsed = time.perf_counter() - started
    return threads * steps * OPS_PER_STEP / elapsed


async def compare(
    backend: str, ours: SaverFactory, official: SaverFactory, args: argparse.Namespace
) -> None:
    """Alternate the two savers `rounds` times and keep each one's best run, so a burst of load
    from elsewhere on the machine does not decide the comparison."""
    best = {"SQLAlchemySaver": 0.0, f"official ({backend})": 0.0}
    for _ in range(args.rounds):
        for name, factory in zip(best, (ours, official), strict=True):
            best[name] = max(best[name], await measure(factory, args.threads, args.steps))
    print(backend)
    for name, rate in best.items():
        print(f"  {name:<28} {rate:9.0f} ops/s")
    mine, theirs = best.values()
    print(f"  ratio SQLAlchemySaver / official: {mine / theirs:.2f}x")


@asynccontextmanager
async def fresh_postgres(server_url: str) -> AsyncIterator[str]:
    name = "labbot_bench_" + uuid.uuid4().hex[:8]
    admin = make_engine(server_url).execution_options(isolation_level="AUTOCOMMIT")
    async with admin.connect() as conn:
        await conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    try:
        yield parse_url(server_url).set(database=name).render_as_string(hide_password=False)
    finally:
        async with admin.connect() as conn:
            await conn.execute(sa.text(f'DROP DATABASE "{name}" WITH (FORCE)'))
        await admin.dispose()


def sqlite_factories(tmp: Path) -> tuple[SaverFactory, SaverFactory]:
    @asynccontextmanager
    async def ours() -> AsyncIterator[BaseCheckpointSaver[Any]]:
        async with SQLAlchemySaver.from_url(f"sqlite+aiosqlite:///{tmp / 'ours.db'}") as saver:
            yield saver

    @asynccontextmanager
    async def official() -> AsyncIterator[BaseCheckpointSaver[Any]]:
        async with AsyncSqliteSaver.from_conn_string(str(tmp / "official.db")) as saver:
            yield saver

    return ours, official


def postgres_factories(server_url: str) -> tuple[SaverFactory, SaverFactory]:
    @asynccontextmanager
    async def ours() -> AsyncIterator[BaseCheckpointSaver[Any]]:
        async with fresh_postgres(server_url) as url, SQLAlchemySaver.from_url(url) as saver:
            yield saver

    @asynccontextmanager
    async def official() -> AsyncIterator[BaseCheckpointSaver[Any]]:
        async with fresh_postgres(server_url) as url:
            conninfo = url.replace("postgresql+psycopg://", "postgresql://")
            async with AsyncPostgresSaver.from_conn_string(conninfo) as saver:
                await saver.setup()
                yield saver

    return ours, official


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--dir", default=None, help="where the SQLite files go (/dev/shm: no fsync cost)"
    )
    args = parser.parse_args()
    print(
        f"{args.threads} threads x {args.steps} steps x {OPS_PER_STEP} ops, "
        f"best of {args.rounds} alternating rounds"
    )
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        backends = {"SQLite": sqlite_factories(Path(tmp))}
        if url := os.environ.get("LABBOT_TEST_POSTGRES_URL"):
            backends["PostgreSQL"] = postgres_factories(url)
        for backend, (ours, official) in backends.items():
            await compare(backend, ours, official, args)


if __name__ == "__main__":
    asyncio.run(main())
