"""Decision latency: click → decision recorded → next message posted, without LLM or devices.

The library planner (local, 0 tokens) and a recording gateway stand in for the LLM and the lab,
so the figure is labbot's own cost: policy, the first-wins insert, the thread lock, the resume of
the real LangGraph graph on the real SQLAlchemy checkpointer, and presenting the next gate.
Runs on SQLite and, when LABBOT_TEST_POSTGRES_URL is set, on PostgreSQL, side by side.

    .venv/bin/python -m bench.decisions [--decisions 200]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from pathlib import Path

from adapters.chat import Message, ThreadRef
from bot.runtime.wiring import open_runtime
from bot.settings import load_settings
from tests.bot.chat import RecordingAdapter, ask, click
from tests.support.postgres import fresh_postgres_database
from tests.workflow.gateways import two_router_lab


class TimedAdapter(RecordingAdapter):
    """Notes when each gate message is posted."""

    def __init__(self) -> None:
        super().__init__()
        self.gate_posted_at = 0.0

    async def post(self, thread: ThreadRef, message: Message) -> str:
        if message.buttons:
            self.gate_posted_at = time.perf_counter()
        return await super().post(thread, message)


async def measure(database_url: str, decisions: int) -> list[float]:
    # every measured change stays open at its params gate: lift the per-person cap
    settings = load_settings(
        database_url=database_url,
        max_open_per_user=decisions + 1,
        max_open_per_channel=decisions + 1,
    )
    chat = TimedAdapter()
    latencies = []
    async with open_runtime(settings, chat, gateway=two_router_lab()) as bot:
        for n in range(decisions):
            thread = ThreadRef("console", "bench", f"t{n}")
            await bot.service.handle(ask("apply ospf to R1,R2", "alice", thread))
            decision = click(chat, "bob", thread=thread)
            started = time.perf_counter()
            await bot.service.handle(decision)
            assert "Step 2 of 2" in chat.last_gate()[1].text, chat.texts()[-1]
            latencies.append(chat.gate_posted_at - started)
    return latencies


def report(name: str, latencies: list[float]) -> tuple[float, float]:
    ordered = sorted(latencies)
    p50 = statistics.median(ordered) * 1000
    p95 = ordered[int(len(ordered) * 0.95) - 1] * 1000
    print(f"{name:<11} decisions={len(ordered):<4} p50={p50:7.1f} ms  p95={p95:7.1f} ms")
    return p50, p95


async def main(decisions: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        sqlite = await measure(f"sqlite+aiosqlite:///{Path(folder) / 'bench.db'}", decisions)
    results = {"sqlite": report("SQLite", sqlite)}
    server = os.environ.get("LABBOT_TEST_POSTGRES_URL")
    if server:
        async with fresh_postgres_database(server) as url:
            results["postgres"] = report("PostgreSQL", await measure(url, decisions))
    worst = max(p95 for _, p95 in results.values())
    print(f"goal p95 <= 300 ms: {'met' if worst <= 300 else 'MISSED'} (worst p95 {worst:.1f} ms)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=200)
    asyncio.run(main(parser.parse_args().decisions))
