"""Many labs, one bot: N labs × D simulated devices, a change asked in every lab at once, on
`labbot serve --http` replicas over one PostgreSQL — beside one lab alone, in the same run.

Each run: a fresh database, the Slack stand-in, N labsim labs with the same device names
(R1..RD) in a process of their own, a labs file giving each lab its own channel, and the
replicas (tests/scale/ starts them as deployed). In every lab's channel at once, alice asks
`apply ntp to all servers=10.88.L.1` (a library template: no LLM); bob clicks Approve and then
Execute as each gate shows, each click to the other replica than the last (a load balancer);
a lab is done when its thread says "Change … pushed: ✓ D ✗ 0 of D". Measured: each click's
HTTP round trip (click → ack; Slack gives up after 3 s), changes finished per minute (from the
first ask to the last ending), and the peak resident memory of each replica with its children
(sampled) divided by the labs it serves. Checked on the way: each device of lab L was told L's
server once and holds no other lab's; every push row of the audit names its lab and device,
once; every row of a change names the change's lab.

    export LABBOT_TEST_POSTGRES_URL=$(.ci/postgres.sh start)
    .venv/bin/python -m bench.many_labs [--labs 30] [--devices 10] [--replicas 2]
                                        [--limit-seconds 1500]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import tempfile
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

from bench.host import scheduling
from bench.slack_ack import percentile
from tests.fakes.slack_api import SlackApiStandIn
from tests.scale.harness import PEOPLE, Replica
from tests.scale.many_labs import many_labs, one_change, verify
from tests.support.postgres import fresh_postgres_database

MIB = 2**20
SLACK_ACK_LIMIT_MS = 3000.0
STEP_SECONDS = 600.0  # one gate or the push may wait this long under load, then the run fails
SAMPLE_SECONDS = 0.25


@dataclass
class Run:
    labs: int
    devices: int
    replicas: int
    acks_ms: list[float]
    seconds: float  # first ask to last ending
    peak_rss: list[int]  # per replica, with its children

    @property
    def per_minute(self) -> float:
        return self.labs / self.seconds * 60

    @property
    def mib_per_lab(self) -> float:
        return max(self.peak_rss) / self.labs / MIB


@contextlib.asynccontextmanager
async def peak_rss(replicas: list[Replica]) -> AsyncIterator[list[int]]:
    """The highest resident memory each replica (with its children) showed while the block ran."""
    peaks = [r.tree_rss_bytes() for r in replicas]

    async def sample() -> None:
        while True:
            await asyncio.sleep(SAMPLE_SECONDS)
            peaks[:] = [max(p, r.tree_rss_bytes()) for p, r in zip(peaks, replicas, strict=True)]

    sampler = asyncio.create_task(sample())
    try:
        yield peaks
    finally:
        sampler.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await sampler


async def measure(server_url: str, labs: int, devices: int, replicas: int) -> Run:
    acks: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        async with (
            fresh_postgres_database(server_url) as database,
            SlackApiStandIn(users=dict(PEOPLE)) as api,
            many_labs(Path(tmp), database, api, labs=labs, devices=devices, count=replicas) as bed,
            peak_rss(bed.replicas) as peaks,
        ):
            started = time.perf_counter()
            await asyncio.gather(
                *(one_change(bed, i, devices, acks, STEP_SECONDS) for i in range(labs))
            )
            seconds = time.perf_counter() - started
            await verify(bed, devices)
    return Run(labs, devices, replicas, acks, seconds, list(peaks))


def report(alone: Run, many: Run) -> None:
    print(
        f"{'labs':>5} {'devices':>7} {'replicas':>8} {'clicks':>6} {'ack p50 ms':>10} "
        f"{'ack p99 ms':>10} {'ack max ms':>10} {'seconds':>8} {'changes/min':>11} "
        f"{'peak RSS MiB/replica':>21} {'MiB/lab':>8}"
    )
    for run in (alone, many):
        rss = "/".join(f"{p / MIB:.0f}" for p in run.peak_rss)
        print(
            f"{run.labs:>5} {run.devices:>7} {run.replicas:>8} {len(run.acks_ms):>6} "
            f"{percentile(run.acks_ms, 0.5):>10.0f} {percentile(run.acks_ms, 0.99):>10.0f} "
            f"{max(run.acks_ms):>10.0f} {run.seconds:>8.1f} {run.per_minute:>11.1f} "
            f"{rss:>21} {run.mib_per_lab:>8.1f}"
        )
    p99s = [percentile(r.acks_ms, 0.99) for r in (alone, many)]
    added = (max(many.peak_rss) - max(alone.peak_rss)) / max(1, many.labs - alone.labs) / MIB
    print(
        f"{many.labs} labs / 1 lab: ack p99 {p99s[1] / p99s[0]:.2f}x "
        f"({'within' if p99s[1] <= SLACK_ACK_LIMIT_MS else 'OVER'} Slack's 3 s), "
        f"changes/min {many.per_minute / alone.per_minute:.2f}x, "
        f"memory per lab {many.mib_per_lab / alone.mib_per_lab:.2f}x; "
        f"each lab beyond the first adds {added:.1f} MiB to a replica"
    )
    print(f"every device changed once, in its own lab only; {os.cpu_count()} CPU(s) shared")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--labs", type=int, default=30)
    parser.add_argument("--devices", type=int, default=10)
    parser.add_argument("--replicas", type=int, default=2)
    parser.add_argument("--limit-seconds", type=float, default=1500.0)
    args = parser.parse_args()
    server = os.environ.get("LABBOT_TEST_POSTGRES_URL")
    if not server:
        raise SystemExit("set LABBOT_TEST_POSTGRES_URL (a PostgreSQL server labbot may use)")
    print(scheduling())
    async with asyncio.timeout(args.limit_seconds):  # everything above is stopped on the way out
        alone = await measure(server, 1, args.devices, args.replicas)
        many = await measure(server, args.labs, args.devices, args.replicas)
    report(alone, many)


if __name__ == "__main__":
    asyncio.run(main())
