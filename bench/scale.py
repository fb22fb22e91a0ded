"""Decision throughput with 1 and 2 `labbot serve --http` replicas on one PostgreSQL, and the
resident memory of one replica idle and loaded.

Each run: a fresh database, the Slack stand-in, a simulated lab and the replicas as separate
processes (the harness of tests/scale/). N change requests open N template gates (not timed);
then one signed click per gate is sent, spread over the replicas like a load balancer would,
at most `--in-flight` at a time, and the clock runs until every thread shows its next gate.
The library planner answers (0 tokens), so the figure is labbot's own cost: the HTTP request,
policy, the first-wins insert, the thread lock, the resume on the checkpointer and the posts.

    export LABBOT_TEST_POSTGRES_URL=postgresql+psycopg://labbot@127.0.0.1:55432/labbot_test
    .venv/bin/python -m bench.scale [--gates 200] [--in-flight 20]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from labsim import demo_topology
from tests.fakes.slack_api import SlackApiStandIn
from tests.scale.deployment import Deployment, deployment
from tests.scale.harness import PEOPLE, clicks
from tests.support.postgres import fresh_postgres_database

MIB = 2**20


@dataclass
class Run:
    replicas: int
    gates: int
    seconds: float
    idle_rss: int
    loaded_rss: int

    @property
    def per_second(self) -> float:
        return self.gates / self.seconds


async def open_gates(lab: Deployment, count: int, in_flight: int) -> list[str]:
    limit = asyncio.Semaphore(in_flight)

    async def one(index: int) -> str:
        async with limit:
            thread = await lab.slack.mention(
                f"apply ntp to R{index % 4 + 1} servers=10.88.0.{index % 250}",
                via=index % len(lab.replicas),
            )
            await lab.slack.gate(thread, "Approve", within=300)
            return thread

    return list(await asyncio.gather(*(one(i) for i in range(count))))


async def decide_all(lab: Deployment, threads: list[str], in_flight: int) -> float:
    gates = [await lab.slack.gate(t, "Approve") for t in threads]
    payloads = [clicks(g, "Approve", ["U2"])[0] for g in gates]
    limit = asyncio.Semaphore(in_flight)

    async def one(index: int) -> None:
        async with limit:
            sender = lab.slack.senders[index % len(lab.slack.senders)]
            status, _ = await sender.interaction(payloads[index])
            assert status == 200
            await lab.slack.gate(threads[index], "Execute", within=300)

    started = time.perf_counter()
    await asyncio.gather(*(one(i) for i in range(len(threads))))
    return time.perf_counter() - started


async def measure(server_url: str, replicas: int, gates: int, in_flight: int) -> Run:
    with tempfile.TemporaryDirectory() as tmp:
        async with (
            fresh_postgres_database(server_url) as database,
            SlackApiStandIn(users=dict(PEOPLE)) as api,
            deployment(
                Path(tmp), database, api, demo_topology(4, switch=False), count=replicas
            ) as lab,
        ):
            await asyncio.sleep(1)  # let start-up settle before reading the idle figure
            idle = lab.replicas[0].rss_bytes()
            threads = await open_gates(lab, gates, in_flight)
            seconds = await decide_all(lab, threads, in_flight)
            loaded = lab.replicas[0].rss_bytes()
    return Run(replicas, gates, seconds, idle, loaded)


def report(runs: list[Run]) -> None:
    print(
        f"{'replicas':>8} {'gates':>6} {'seconds':>8} {'decisions/s':>12} "
        f"{'RSS idle MiB':>13} {'RSS loaded MiB':>15}"
    )
    for run in runs:
        print(
            f"{run.replicas:>8} {run.gates:>6} {run.seconds:>8.2f} {run.per_second:>12.1f} "
            f"{run.idle_rss / MIB:>13.0f} {run.loaded_rss / MIB:>15.0f}"
        )
    if len(runs) == 2:
        ratio = runs[1].per_second / runs[0].per_second
        print(
            f"2 replicas / 1 replica: {ratio:.2f}x ({os.cpu_count()} CPU(s) shared by the "
            "replicas, the lab and the clients)"
        )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gates", type=int, default=200)
    parser.add_argument("--in-flight", type=int, default=20)
    args = parser.parse_args()
    server = os.environ.get("LABBOT_TEST_POSTGRES_URL")
    if not server:
        raise SystemExit("set LABBOT_TEST_POSTGRES_URL (a PostgreSQL server labbot may use)")
    runs = [await measure(server, n, args.gates, args.in_flight) for n in (1, 2)]
    report(runs)


if __name__ == "__main__":
    asyncio.run(main())
