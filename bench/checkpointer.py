"""Benchmark: SQLAlchemySaver against the official LangGraph savers, side by side in one run.

    .venv/bin/python -m bench.checkpointer [--threads 8 40 100] [--steps 50] [--runs 3]

The mixed workload: each simulated graph thread does, per step, put a checkpoint (a changing dict
channel, a counter and a short text), put two writes, get the latest tuple, list the last three
checkpoints. Threads run concurrently (asyncio.gather), as a bot serving several chat threads
does, at each concurrency given. SQLite is compared with langgraph-checkpoint-sqlite's
AsyncSqliteSaver; PostgreSQL with AsyncPostgresSaver when LABBOT_TEST_POSTGRES_URL points at a
server (each saver gets a fresh database). Prints every run, the median ratio per backend and
concurrency, and last a table of the ratios side by side (goal: ≥ 1.5x everywhere).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver, empty_checkpoint
from langgraph.checkpoint.base.id import uuid6
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from storage.checkpointer import SQLAlchemySaver
from tests.support.postgres import fresh_postgres_database

SaverFactory = Callable[[], AbstractAsyncContextManager[BaseCheckpointSaver[Any]]]
OPS_PER_STEP = 4
GOAL_RATIO = 1.5


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
    backend: str,
    ours: SaverFactory,
    official: SaverFactory,
    threads: int,
    args: argparse.Namespace,
) -> list[float]:
    """`runs` runs side by side (each on fresh databases, which saver goes first alternating, so
    drift in the machine's load falls on both); prints each run and returns the ratios."""
    print(f"{backend}, {threads} threads: SQLAlchemySaver vs the official saver, ops/s")
    ratios = []
    for run in range(1, args.runs + 1):
        order = [("ours", ours), ("official", official)]
        if run % 2 == 0:
            order.reverse()
        rates = {name: await measure(f, threads, args.steps) for name, f in order}
        ratios.append(rates["ours"] / rates["official"])
        print(
            f"  run {run}: {rates['ours']:7.0f} vs {rates['official']:7.0f}   "
            f"ratio {ratios[-1]:.2f}x"
        )
    median = statistics.median(ratios)
    print(f"  median ratio SQLAlchemySaver / official ({backend}, {threads}): {median:.2f}x")
    return ratios


def summary(ratios: dict[tuple[str, int], list[float]]) -> None:
    """One line per backend and concurrency: the range and median of the ratios."""
    print(f"ratio SQLAlchemySaver / official (goal >= {GOAL_RATIO}x), min-max and median:")
    for (backend, threads), found in ratios.items():
        verdict = "meets" if min(found) >= GOAL_RATIO else "MISSES"
        print(
            f"  {backend:>10} {threads:4d} threads: {min(found):.2f}-{max(found):.2f}x, "
            f"median {statistics.median(found):.2f}x — {verdict}"
        )


def sqlite_factories(tmp: Path) -> tuple[SaverFactory, SaverFactory]:
    """Each run on a new file."""

    def fresh_file(saver: str) -> Path:
        return tmp / f"{saver}-{uuid.uuid4().hex[:8]}.db"

    @asynccontextmanager
    async def ours() -> AsyncIterator[BaseCheckpointSaver[Any]]:
        async with SQLAlchemySaver.from_url(f"sqlite+aiosqlite:///{fresh_file('ours')}") as saver:
            yield saver

    @asynccontextmanager
    async def official() -> AsyncIterator[BaseCheckpointSaver[Any]]:
        async with AsyncSqliteSaver.from_conn_string(str(fresh_file("official"))) as saver:
            yield saver

    return ours, official


def postgres_factories(server_url: str) -> tuple[SaverFactory, SaverFactory]:
    @asynccontextmanager
    async def ours() -> AsyncIterator[BaseCheckpointSaver[Any]]:
        async with (
            fresh_postgres_database(server_url) as url,
            SQLAlchemySaver.from_url(url) as saver,
        ):
            yield saver

    @asynccontextmanager
    async def official() -> AsyncIterator[BaseCheckpointSaver[Any]]:
        async with fresh_postgres_database(server_url) as url:
            conninfo = url.replace("postgresql+psycopg://", "postgresql://")
            async with AsyncPostgresSaver.from_conn_string(conninfo) as saver:
                await saver.setup()
                yield saver

    return ours, official


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, nargs="+", default=[8, 40, 100])
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--dir", default=None, help="where the SQLite files go (/dev/shm: no fsync cost)"
    )
    args = parser.parse_args()
    shown = ", ".join(str(t) for t in args.threads)
    print(
        f"{shown} threads x {args.steps} steps x {OPS_PER_STEP} ops, "
        f"{args.runs} runs per backend and concurrency"
    )
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        backends = {"SQLite": sqlite_factories(Path(tmp))}
        if url := os.environ.get("LABBOT_TEST_POSTGRES_URL"):
            backends["PostgreSQL"] = postgres_factories(url)
        ratios = {}
        for backend, (ours, official) in backends.items():
            for threads in args.threads:
                found = await compare(backend, ours, official, threads, args)
                ratios[backend, threads] = found
    summary(ratios)


if __name__ == "__main__":
    asyncio.run(main())
