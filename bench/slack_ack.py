"""Click → ack latency of the Slack adapter in HTTP mode, its server on the bot's loop or its own.

The whole bot runs (simulated lab, SQLite, library planner, the decision service): one Approve
click decides the gate (and the bot goes on planning the parameters in the background), every
later click is refused as "already approved" (recorded, answered ephemerally) — all of it in
background tasks on the bot's loop while the acks are measured as Slack would (the clicks are
sent from a thread of their own, the Web API stand-in answers from another). Goal: p99 ≤ 50 ms.

Both ways of serving run side by side in one invocation, alternating which goes first, several
runs at each concurrency: bolt's aiohttp server on its own thread and event loop, and on the
bot's loop (bolt's usual single-loop pattern). Printed: each run's p50/p99, the medians over the
runs, and per run the ratios bot's loop / own loop of p50 and p99 with their medians.

    .venv/bin/python -m bench.slack_ack [--runs 5] [--clicks 200] [--concurrency 1 10]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Coroutine
from pathlib import Path
from typing import Any, TypeVar

from tests.adapters.slack.payloads import click
from tests.adapters.slack.stack import slack_lab
from tests.fakes.slack_api import SlackApiStandIn, SlackSender

GOAL_P99_MS = 50.0
MODES = {True: "own thread+loop", False: "bot's loop"}
T = TypeVar("T")


@contextlib.asynccontextmanager
async def slack_elsewhere(users: dict[str, str]) -> AsyncIterator[SlackApiStandIn]:
    """The Web API stand-in on a thread and loop of its own: Slack is not on the bot's loop."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="slack-web-api")
    thread.start()

    async def there(work: Coroutine[Any, Any, T]) -> T:
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(work, loop))

    try:
        api = await there(SlackApiStandIn(users=users).__aenter__())
        try:
            yield api
        finally:
            await there(api.__aexit__(None, None, None))
    finally:
        loop.call_soon_threadsafe(loop.stop)
        await asyncio.to_thread(thread.join)
        loop.close()


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


async def measure(clicks: int, concurrency: int, own_loop: bool) -> tuple[float, float]:
    """p50 and p99 of `clicks` signed clicks on one gate, in ms."""
    people = {f"U{n}": f"user{n}" for n in range(clicks)}
    async with slack_elsewhere(people) as api:
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
                assert len(api.ephemerals) == clicks - 1, "every later click is refused"
    return percentile(latencies, 0.50), percentile(latencies, 0.99)


def compare(runs: int, clicks: int, concurrency: int) -> float:
    """Both modes `runs` times, alternating which goes first; median p99 bot's loop / own."""
    p50s: dict[bool, list[float]] = {True: [], False: []}
    p99s: dict[bool, list[float]] = {True: [], False: []}
    for run in range(runs):
        for own_loop in (True, False) if run % 2 == 0 else (False, True):
            p50, p99 = asyncio.run(measure(clicks, concurrency, own_loop))
            p50s[own_loop].append(p50)
            p99s[own_loop].append(p99)
            print(f"  run {run + 1} {MODES[own_loop]:>15}: p50 {p50:6.1f} ms  p99 {p99:6.1f} ms")
    for own_loop, label in MODES.items():
        p99 = statistics.median(p99s[own_loop])
        verdict = "meets" if p99 <= GOAL_P99_MS else "MISSES"
        print(
            f"  median {label:>15}: p50 {statistics.median(p50s[own_loop]):6.1f} ms  "
            f"p99 {p99:6.1f} ms — {verdict} p99 ≤ {GOAL_P99_MS:.0f} ms"
        )
    for name, values in (("p50", p50s), ("p99", p99s)):
        ratios = [bot / own for bot, own in zip(values[False], values[True], strict=True)]
        shown = " ".join(f"{r:.2f}" for r in ratios)
        wins = sum(r > 1 for r in ratios)
        print(
            f"  {name} bot's loop / own loop, per run: {shown}; median "
            f"{statistics.median(ratios):.2f}; own loop faster in {wins} of {runs} runs"
        )
    return statistics.median(p99s[False]) / statistics.median(p99s[True])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--clicks", type=int, default=200)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 10])
    args = parser.parse_args()
    medians = {}
    for concurrency in args.concurrency:
        print(f"{args.clicks} signed clicks, {concurrency} at a time, {args.runs} runs:")
        medians[concurrency] = compare(args.runs, args.clicks, concurrency)
    summary = ", ".join(f"{c} at a time ×{m:.2f}" for c, m in medians.items())
    print(f"median p99 on the bot's loop / median p99 on its own loop: {summary}")


if __name__ == "__main__":
    main()
