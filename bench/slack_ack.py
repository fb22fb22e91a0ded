"""Click → ack latency of the Slack adapter in HTTP mode: p50/p99 over N signed clicks.

The whole bot runs (simulated lab, SQLite, library planner, the decision service); Slack's side
runs in its own thread and event loop, so the figures are what Slack would measure: one
Approve click decides the gate (and the bot goes on planning the parameters in the background),
every later click is refused as "already approved" (recorded, answered ephemerally) — all of it
in background tasks on the bot's loop. Goal: p99 ≤ 50 ms.

Both ways of serving HTTP run side by side: bolt's aiohttp server on its own thread and loop
(what labbot does) and on the bot's own loop (bolt's usual single-loop pattern), with the ratio.

    .venv/bin/python -m bench.slack_ack [--clicks 200] [--concurrency 1]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from tests.adapters.slack.payloads import click
from tests.adapters.slack.stack import slack_lab
from tests.fakes.slack_api import SlackApiStandIn, SlackSender

GOAL_P99_MS = 50.0


async def _send_all(url: str, payloads: list[dict[str, Any]], concurrency: int) -> list[float]:
    """Send the clicks, `concurrency` at a time; return each one's latency in ms."""
    latencies: list[float] = []
    async with SlackSender(url) as slack:

        async def one(payload: dict[str, Any]) -> None:
            started = time.perf_counter()
            status, _ = await slack.interaction(payload)
            latencies.append((time.perf_counter() - started) * 1000)
            assert status == 200, status

        for start in range(0, len(payloads), concurrency):
            await asyncio.gather(*(one(p) for p in payloads[start : start + concurrency]))
    return latencies


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


async def measure(clicks: int, concurrency: int, own_loop: bool) -> list[float]:
    people = {f"U{n}": f"user{n}" for n in range(clicks)}
    async with SlackApiStandIn(users=people) as api:
        with tempfile.TemporaryDirectory() as tmp:
            async with slack_lab(Path(tmp), api, own_loop=own_loop) as bot:
                thread = await bot.mention("configure ospf on all routers")
                gate = await bot.gate(thread, "Approve")
                payloads = [click(gate, "Approve", user=u, name=n) for u, n in people.items()]
                url = bot.adapter.transport.url  # type: ignore[attr-defined]
                latencies = await asyncio.to_thread(
                    asyncio.run, _send_all(url, payloads, concurrency)
                )
                await bot.adapter.idle()
                refused = len(api.ephemerals)
    print(f"decided once, {refused} later click(s) refused ephemerally")
    return latencies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clicks", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=1)
    args = parser.parse_args()
    p99s = {}
    for own_loop, label in ((True, "own thread+loop"), (False, "bot's loop")):
        latencies = asyncio.run(measure(args.clicks, args.concurrency, own_loop))
        p50, p99 = percentile(latencies, 0.50), percentile(latencies, 0.99)
        p99s[own_loop] = p99
        verdict = "meets" if p99 <= GOAL_P99_MS else "MISSES"
        print(
            f"{label:>15}: {len(latencies)} signed clicks, concurrency {args.concurrency}: "
            f"p50 {p50:.1f} ms, p99 {p99:.1f} ms, max {max(latencies):.1f} ms, "
            f"mean {statistics.fmean(latencies):.1f} ms — {verdict} the goal p99 ≤ "
            f"{GOAL_P99_MS:.0f} ms"
        )
    print(f"p99 on the bot's loop / p99 on its own loop: {p99s[False] / p99s[True]:.2f}")


if __name__ == "__main__":
    main()
