"""Benchmark: SQLAlchemySaver against the official LangGraph savers, side by side in one run.

    .venv/bin/python -m bench.checkpointer [--threads 8 40 100] [--steps 50] [--runs 3]
        [--slice-steps 5 0] [--dir /dev/shm]

The mixed workload: each simulated graph thread does, per step, put a checkpoint (a changing dict
channel, a counter and a short text), put two writes, get the latest tuple, list the last three
checkpoints. Threads run concurrently (asyncio.gather), as a bot serving several chat threads
does, at each concurrency given. SQLite is compared with langgraph-checkpoint-sqlite's
AsyncSqliteSaver; PostgreSQL with AsyncPostgresSaver when LABBOT_TEST_POSTGRES_URL points at a
server (each saver gets a fresh database). Within a run the two savers take turns every
`--slice-steps` steps (see `measure`; 0: each runs all its steps whole, one after the other; several
values: each method in turn). Prints every run (each saver's ops/s and the load average), the
median ratio per backend, method and concurrency, and last the range and median of the ratios and
the median ops/s of each saver side by side (goal: ≥ 1.5x everywhere).
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
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
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


class GraphThread:
    """One simulated graph thread, its checkpoint carried from one slice of steps to the next."""

    def __init__(self, thread_id: str) -> None:
        self.thread_id = thread_id
        self.config: Any = config_for(thread_id)
        self.checkpoint = empty_checkpoint()
        self.versions: dict[str, Any] = {}
        self.step = 0

    async def run(self, saver: BaseCheckpointSaver[Any], steps: int) -> None:
        for _ in range(steps):
            await self.one_step(saver)

    async def one_step(self, saver: BaseCheckpointSaver[Any]) -> None:
        step, thread_id = self.step, self.thread_id
        values = {
            "proposal": {"template": "router ospf 1\n network {{ net }} area 0\n" * 8, "n": step},
            "step": step,
            "text": f"configure OSPF area 0 on all routers ({thread_id})",
        }
        changed = ["proposal", "step"] if step else list(values)
        for channel in changed:
            self.versions[channel] = saver.get_next_version(self.versions.get(channel), None)
        self.checkpoint = {
            **self.checkpoint,
            "id": str(uuid6(clock_seq=step)),
            "channel_values": values,
            "channel_versions": dict(self.versions),
            "versions_seen": {"agent": dict(self.versions)},
        }
        metadata: Any = {"source": "loop", "step": step, "parents": {}}
        new_versions = {c: self.versions[c] for c in changed}
        config = await saver.aput(self.config, self.checkpoint, metadata, new_versions)
        await saver.aput_writes(config, [("proposal", {"n": step}), ("step", step)], f"task-{step}")
        latest = await saver.aget_tuple(config_for(thread_id))
        assert latest is not None
        found = [t async for t in saver.alist(config_for(thread_id), limit=3)]
        assert found
        self.config, self.step = config, step + 1


def config_for(thread_id: str) -> Any:
    return {"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}}


async def measure(
    factories: dict[str, SaverFactory], threads: int, steps: int, slice_steps: int
) -> dict[str, float]:
    """ops/s of each saver in one run, each on a fresh database. The savers take turns in slices
    of `slice_steps` steps (who goes first alternating; 0: one slice of all the steps), and each
    one's rate is its ops over the sum of its slices: a change in the machine's load (other work
    on the shared host) falls on both alike, instead of on whichever saver ran at that moment."""
    slice_steps = slice_steps or steps
    async with AsyncExitStack() as stack:
        savers = {name: await stack.enter_async_context(f()) for name, f in factories.items()}
        graphs = {name: [GraphThread(f"t{i}") for i in range(threads)] for name in savers}
        for saver in savers.values():
            await GraphThread("warm-up").run(saver, 3)
        elapsed = dict.fromkeys(savers, 0.0)
        for turn, done in enumerate(range(0, steps, slice_steps)):
            names = list(savers) if turn % 2 == 0 else list(reversed(savers))
            for name in names:
                started = time.perf_counter()
                size = min(slice_steps, steps - done)
                await asyncio.gather(*(g.run(savers[name], size) for g in graphs[name]))
                elapsed[name] += time.perf_counter() - started
    return {name: threads * steps * OPS_PER_STEP / seconds for name, seconds in elapsed.items()}


Rates = dict[str, float]  # ops/s per saver ("ours", "official") in one run


def method(slice_steps: int) -> str:
    return "whole runs" if slice_steps == 0 else f"turns of {slice_steps} steps"


async def compare(
    backend: str, factories: dict[str, SaverFactory], threads: int, slice_steps: int, steps: int,
    runs: int,
) -> list[Rates]:  # fmt: skip
    """`runs` runs side by side; prints each run (with the load average) and returns its rates."""
    print(f"{backend}, {threads} threads, {method(slice_steps)}: ours vs the official, ops/s")
    found = []
    for run in range(1, runs + 1):
        rates = await measure(factories, threads, steps, slice_steps)
        found.append(rates)
        load = ", ".join(f"{v:.1f}" for v in os.getloadavg())
        print(
            f"  run {run}: {rates['ours']:7.0f} vs {rates['official']:7.0f}   "
            f"ratio {ratio(rates):.2f}x   load {load}"
        )
    median = statistics.median(ratio(r) for r in found)
    print(f"  median ratio ours / official ({backend}, {threads}): {median:.2f}x")
    return found


def ratio(rates: Rates) -> float:
    return rates["ours"] / rates["official"]


def summary(results: dict[tuple[str, str, int], list[Rates]]) -> None:
    """One line per backend, method and concurrency: ratios' range and median, median ops/s."""
    print(f"ratio SQLAlchemySaver / official (goal >= {GOAL_RATIO}x), min-max and median:")
    for (backend, how, threads), found in results.items():
        ratios = [ratio(r) for r in found]
        verdict = "meets" if min(ratios) >= GOAL_RATIO else "MISSES"
        ours = statistics.median(r["ours"] for r in found)
        official = statistics.median(r["official"] for r in found)
        print(
            f"  {backend:>10} {how:>17} {threads:4d} threads: "
            f"{min(ratios):.2f}-{max(ratios):.2f}x, median {statistics.median(ratios):.2f}x "
            f"({ours:.0f} vs {official:.0f} ops/s) — {verdict}"
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
        "--slice-steps", type=int, nargs="+", default=[5], help="turns of N steps; 0: whole runs"
    )
    parser.add_argument(
        "--dir", default=None, help="where the SQLite files go (/dev/shm: no fsync cost)"
    )
    args = parser.parse_args()
    shown = ", ".join(str(t) for t in args.threads)
    print(
        f"{shown} threads x {args.steps} steps x {OPS_PER_STEP} ops, {args.runs} runs per "
        f"backend, method and concurrency; SQLite files in {args.dir or tempfile.gettempdir()}"
    )
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        backends = {"SQLite": sqlite_factories(Path(tmp))}
        if url := os.environ.get("LABBOT_TEST_POSTGRES_URL"):
            backends["PostgreSQL"] = postgres_factories(url)
        results = {}
        for backend, (ours, official) in backends.items():
            factories = {"ours": ours, "official": official}
            for slice_steps in args.slice_steps:
                for threads in args.threads:
                    found = await compare(
                        backend, factories, threads, slice_steps, args.steps, args.runs
                    )
                    results[backend, method(slice_steps), threads] = found
    summary(results)


if __name__ == "__main__":
    asyncio.run(main())
