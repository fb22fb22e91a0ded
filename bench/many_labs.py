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
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

from bench.host import scheduling
from bench.slack_ack import percentile
from tests.fakes.slack_api import Posted, SlackApiStandIn
from tests.scale.deployment import open_audit
from tests.scale.harness import PEOPLE, Replica, clicks
from tests.scale.many_labs import ManyLabs, channel_of, many_labs
from tests.support.postgres import fresh_postgres_database

MIB = 2**20
SLACK_ACK_LIMIT_MS = 3000.0
GATES = ("Approve", "Execute")
STEP_SECONDS = 600.0  # one gate or the push may wait this long under load, then the run fails
SAMPLE_SECONDS = 0.25


@dataclass
class Run:
    labs: int
    devices: int
    replicas: int
    acks_ms: list[float]
    seconds: float  # first ask to last "pushed"
    peak_rss: list[int]  # per replica, with its children

    @property
    def per_minute(self) -> float:
        return self.labs / self.seconds * 60

    @property
    def mib_per_lab(self) -> float:
        return max(self.peak_rss) / self.labs / MIB


def server_of(index: int) -> str:
    return f"10.88.{index}.1"


async def one_change(bed: ManyLabs, index: int, lab: str, devices: int, acks: list[float]) -> None:
    """Ask in the lab's channel, click through both gates, wait for the change's last word."""
    side = bed.slack.in_channel(channel_of(lab))
    senders = side.senders
    thread = await side.mention(
        f"apply ntp to all servers={server_of(index)}", via=index % len(senders)
    )
    for step, label in enumerate(GATES):
        gate = await side.gate(thread, label, within=STEP_SECONDS)
        payload = clicks(gate, label, ["U2"])[0]
        started = time.perf_counter()
        status, _ = await senders[(index + step + 1) % len(senders)].interaction(payload)
        acks.append((time.perf_counter() - started) * 1000)
        assert status == 200, (lab, label, status)
    ended = await side.wait_message(thread, finished, within=STEP_SECONDS)
    assert f"pushed: ✓ {devices} ✗ 0 of {devices}" in ended.text, (lab, ended.text)


def finished(message: Posted) -> bool:
    return message.text.startswith("Change chg-")  # FINISHED_TITLE: pushed, failed, …


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


async def verify(bed: ManyLabs, devices: int) -> None:
    """Each lab's devices told its server once, no other lab's; one push row per (lab, device)."""
    servers = {lab: server_of(i) for i, lab in enumerate(bed.labs.labs)}
    seen = await bed.labs.devices()
    for lab, by_device in seen.items():
        assert len(by_device) == devices, (lab, sorted(by_device))
        for device, it in by_device.items():
            told = [c.strip() for c in it.commands if c.strip().startswith("ntp server")]
            assert told == [f"ntp server {servers[lab]}"], (lab, device, told)
            held = {s for other, s in servers.items() if f"ntp server {s}" in it.running_config}
            assert held == {servers[lab]}, (lab, device, held)
    async with open_audit(bed.database_url) as audit:
        entries = await audit.entries()
    pushes = Counter((e.lab, e.device) for e in entries if e.kind == "push")
    wanted = {(lab, f"R{n}") for lab in servers for n in range(1, devices + 1)}
    assert set(pushes) == wanted and set(pushes.values()) == {1}, pushes
    changes = {e.change_id: e.lab for e in entries if e.kind == "change"}
    assert sorted(changes.values()) == sorted(servers), changes
    assert all(e.lab == changes[e.change_id] for e in entries if e.change_id)


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
                *(one_change(bed, i, lab, devices, acks) for i, lab in enumerate(bed.labs.labs))
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
