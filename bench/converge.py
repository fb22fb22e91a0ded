"""Benchmark: approval → OSPF converged and post-checks passed, on real FRR labs of 1 to 20 routers.

    python -m bench.converge [--sizes 1 3 10 20] [--shapes chain ring]    (root: FRR labs)

For each size and shape (a chain, or a ring from 3 routers) it runs, side by side:
- **the bot**: a fresh FRR lab (frrlab, vtysh consoles on 127.0.0.1), the real decision service
  (library planner, SQLite, Nornir + netmiko over the consoles); alice asks "configure ospf
  on all routers fast=true" (lab timers; `--timers hello1`: "… with hello-interval 1"), bob
  approves the template, then Execute. From that approval it times the push (every device
  finished) and the change's end (its post-checks passed);
- **the protocol alone**: another fresh lab, the very lines the bot pushed applied straight
  with vtysh on every router at once, then polled: OSPF's own convergence, with no bot.

It prints push time, approval → passed, OSPF alone (until every adjacency is Full and every
loopback routed everywhere, polled; ± the longest poll round), resident memory per router (its
four daemons), and the ratios push(largest)/push(1) (goal ≤ 2×) and bot overhead =
(approval → passed) − OSPF alone (goal ≤ 1 s): the push itself plus the time the post-checks
take to see the converged state.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from adapters.chat import Message, ThreadRef
from bot.demo import demo_settings
from bot.settings import load_settings
from bot.wiring import open_runtime
from frrlab import FrrLab, generated_topology
from labsim.topology import DeviceSpec, Topology
from tests.bot.chat import RecordingAdapter, ask, click
from workflow.devices.static import StaticInventory

REQUESTS = {
    "fast": "configure ospf on all routers fast=true",
    "hello1": "configure ospf on all routers with hello-interval 1",
}
CONVERGE_SECONDS = 90.0


class TimedChat(RecordingAdapter):
    """Records when each message was posted or updated."""

    def __init__(self) -> None:
        super().__init__()
        self.timeline: list[tuple[float, Message]] = []

    async def post(self, thread: ThreadRef, message: Message) -> str:
        self.timeline.append((time.time(), message))
        return await super().post(thread, message)

    async def update(self, thread: ThreadRef, message_id: str, message: Message) -> None:
        self.timeline.append((time.time(), message))
        await super().update(thread, message_id, message)


@dataclass(frozen=True)
class BotRun:
    push: float  # approval -> every device finished
    done: float  # approval -> the change's last message (post-checks passed)
    checked: bool  # the last message reports passed post-checks on every router
    memory: float  # MiB per router
    lines: dict[str, list[str]]  # what the bot pushed, per router


async def bot_run(topology: Topology, workdir: Path, request: str) -> BotRun:
    chat = TimedChat()
    settings = demo_settings(load_settings(data_dir=workdir))
    async with FrrLab.start(topology) as lab:
        inventory = StaticInventory(lab.write_inventory(workdir / "hosts.yaml"))
        async with open_runtime(settings, chat, inventory=inventory) as bot:
            await bot.service.handle(ask(request, "alice"))
            await bot.service.handle(click(chat, "bob"))
            lines = _pushed_lines(chat.last_gate()[1])
            approved = time.time()
            await bot.service.handle(click(chat, "bob"))
        memory = statistics.mean(lab.memory_bytes().values()) / 2**20
    size = len(topology.devices)
    pushed = next(t for t, m in chat.timeline if f"{size}/{size} device(s) finished" in m.text)
    finished_at, last = chat.timeline[-1]
    if f"✓ {size} ✗ 0 of {size}" not in last.text:
        raise SystemExit(f"the change on {size} routers did not succeed: {last.text}")
    checked = len(last.blocks) == size and all("post-checks passed" in b.text for b in last.blocks)
    return BotRun(pushed - approved, finished_at - approved, checked, memory, lines)


def _pushed_lines(gate: Message) -> dict[str, list[str]]:
    """Each router's configuration from the params gate (blocks titled `R1 configuration`)."""
    lines: dict[str, list[str]] = {}
    for block in (*gate.blocks, *gate.attachments):
        name, sep, _ = block.title.partition(" configuration")
        if sep:
            lines.setdefault(name, []).extend(block.text.splitlines())
    return lines


def protocol_run(topology: Topology, lines: dict[str, list[str]]) -> tuple[float, float]:
    """(seconds from every router configured straight with vtysh until every adjacency is Full
    and every loopback routed on every router, the longest poll round: the resolution)."""
    with FrrLab.run(topology) as lab, ThreadPoolExecutor(max_workers=len(lines)) as pool:
        list(pool.map(lambda r: lab.vtysh(r, "configure terminal", *lines[r]), lines))
        applied = time.monotonic()
        resolution = 0.0
        while time.monotonic() - applied < CONVERGE_SECONDS:
            started = time.monotonic()
            done = all(pool.map(lambda spec: _converged(lab, topology, spec), topology.devices))
            resolution = max(resolution, time.monotonic() - started)
            if done:
                return started - applied, resolution
    raise SystemExit(f"OSPF did not converge on {len(lines)} routers")


def _converged(lab: FrrLab, topology: Topology, spec: DeviceSpec) -> bool:
    """The router's adjacencies to its linked routers are Full, every other loopback routed."""
    peers = {
        topology.device(peer[0]).data["loopback"]
        for i in spec.interfaces
        if (peer := topology.peer(spec.name, i.name)) is not None
    }
    shown = json.loads(lab.vtysh(spec.name, "show ip ospf neighbor json"))["neighbors"]
    full = {rid for rid, entries in shown.items() if entries[0]["nbrState"].startswith("Full")}
    loopbacks = {f"{d.data['loopback']}/32" for d in topology.devices if d.name != spec.name}
    routed = set(json.loads(lab.vtysh(spec.name, "show ip route ospf json")))
    return peers <= full and loopbacks <= routed


async def main(sizes: list[int], shapes: list[str], request: str) -> None:
    pushes: dict[int, float] = {}
    overheads: list[float] = []
    header = "routers shape   push s  approval→passed s  OSPF alone s (±)  overhead s  MiB/router"
    print(header)
    for shape in shapes:
        for size in sizes:
            if shape == "ring" and size < 3:
                continue
            topology = generated_topology(size, ring=shape == "ring")
            with tempfile.TemporaryDirectory(prefix="frr-lab-bench-") as tmp:
                run = await bot_run(topology, Path(tmp), request)
            alone, resolution = await asyncio.to_thread(protocol_run, topology, run.lines)
            pushes.setdefault(size, run.push)
            overheads.append(run.done - alone)
            note = "" if run.checked else "  (no passed post-checks in the thread)"
            print(
                f"{size:>7} {shape:<6}{run.push:7.2f} {run.done:18.2f} {alone:9.2f} "
                f"({resolution:.2f}) {run.done - alone:11.2f} {run.memory:11.1f}{note}",
                flush=True,
            )
    first, last = min(pushes), max(pushes)
    if first != last:
        ratio = pushes[last] / pushes[first]
        verdict = "ok" if ratio <= 2.0 else "over the 2× goal"
        print(f"push({last})/push({first}): {ratio:.2f}× ({verdict})")
    worst = max(overheads)
    verdict = "ok" if worst <= 1.0 else "over the 1 s goal"
    print(f"bot overhead over OSPF's own convergence: worst {worst:.2f} s ({verdict})")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 3, 10, 20])
    parser.add_argument("--shapes", nargs="+", choices=["chain", "ring"], default=["chain", "ring"])
    parser.add_argument(
        "--timers", choices=sorted(REQUESTS), default="fast", help="OSPF timers of the change"
    )
    args = parser.parse_args()
    print(f"request: {REQUESTS[args.timers]}")
    asyncio.run(main(args.sizes, args.shapes, REQUESTS[args.timers]))
