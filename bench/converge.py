"""Benchmark: approval → OSPF converged and post-checks passed, on real FRR labs of 1 to 20 routers.

    python -m bench.converge [--sizes 1 3 10 20] [--shapes chain ring] [--repeat N]   (root)

For each size and shape (a chain, or a ring from 3 routers) it runs, side by side:
- **the bot**: a fresh FRR lab (frrlab, vtysh consoles on 127.0.0.1), the real decision service
  (library planner, SQLite, Nornir + netmiko over the consoles); alice asks "configure ospf
  on all routers fast=true" (lab timers; `--timers hello1`: "… with hello-interval 1"), bob
  approves the template, then Execute. From that approval it times the push (every device
  finished) and the change's end (its post-checks passed);
- **the protocol alone**: another fresh lab, the very lines the bot pushed applied straight
  with vtysh on every router at once: OSPF's own convergence, with no bot.

Convergence (every adjacency Full, from FRR's neighbour up-times, and every other loopback in
every router's kernel table, from `ip -ts monitor route`) is timed without polling the routers.
It prints per run: push (approval → every device finished), converged (approval → converged),
passed (approval → post-checks passed), detect (passed − converged), OSPF alone (configured →
converged, no bot), overhead (passed − OSPF alone: the push plus the detection), resident memory
per router (its four daemons), the CPU time labbot's own process used from approval to the
end (every thread), and logins (every console of the fresh lab opened at once by a bare socket
client, until each shows its prompt: the lab's own cost of a session, the floor under a push);
then push(largest)/push(1) (goal ≤ 2×) beside the same ratio of the logins, and the worst
overhead (goal ≤ 1 s), on the medians of `--repeat` runs per size. A run whose lab does not
converge within 90 s is said and left out. The development host is shared and one run's
figures swing with its load: run it as `nice -n -10 python -m bench.converge` there, so the
routers, their consoles and labbot go before other work (they are the bench's children).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import socket
import statistics
import subprocess
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from adapters.chat import Message, ThreadRef
from bot.cli.demo import demo_settings
from bot.runtime.wiring import open_runtime
from bot.settings import load_settings
from frrlab import FrrLab, generated_topology
from labsim.topology import DeviceSpec, Topology
from tests.bot.chat import RecordingAdapter, ask, click
from workflow.devices.inventories.static import StaticInventory

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


class NotConverged(Exception):
    """A run whose lab did not converge in time: said, left out of the medians."""


class RouteWatch:
    """`ip -ts monitor route` in every router's namespace: when the kernel installed each route,
    to the microsecond, without polling the routers."""

    def __init__(self, lab: FrrLab) -> None:
        self.installed: dict[str, dict[str, float]] = {router: {} for router in lab.routers}
        self._processes = [
            subprocess.Popen(
                ["ip", "-ts", "-n", lab.namespace(router), "monitor", "route"],
                stdout=subprocess.PIPE,
                text=True,
            )
            for router in lab.routers
        ]
        for router, process in zip(lab.routers, self._processes, strict=True):
            threading.Thread(target=self._read, args=(router, process), daemon=True).start()

    def _read(self, router: str, process: subprocess.Popen[str]) -> None:
        for line in process.stdout or ():
            stamp, _, event = line.partition("] ")
            if event and not event.startswith("Deleted"):
                when = datetime.fromisoformat(stamp.lstrip("[")).timestamp()
                self.installed[router].setdefault(event.split()[0], when)

    def converged_at(self, lab: FrrLab) -> float | None:
        """When every router had every other loopback and every adjacency was Full (epoch s),
        or None while not yet."""
        topology = lab.topology
        times = [0.0]
        for spec in topology.devices:
            others = _other_loopbacks(topology, spec)
            if not all(address in self.installed[spec.name] for address in others):
                return None
            times += [self.installed[spec.name][address] for address in others]
            full = _full_since(lab, spec)
            if full is None:
                return None
            times.append(full)
        return max(times)

    def wait(self, lab: FrrLab, run: str) -> float:
        deadline = time.monotonic() + CONVERGE_SECONDS
        while (converged := self.converged_at(lab)) is None:
            if time.monotonic() > deadline:
                raise NotConverged(
                    f"OSPF did not converge on {len(lab.routers)} routers ({run}) within "
                    f"{CONVERGE_SECONDS:g} s: {'; '.join(self.missing(lab))}"
                )
            time.sleep(0.1)
        return converged

    def missing(self, lab: FrrLab) -> list[str]:
        """Per router not converged: the loopbacks its kernel lacks, or that a neighbour is
        not Full."""
        said = []
        for spec in lab.topology.devices:
            others = _other_loopbacks(lab.topology, spec)
            lacking = [a for a in others if a not in self.installed[spec.name]]
            if lacking:
                said.append(f"{spec.name} lacks routes to {', '.join(lacking)}")
            elif _full_since(lab, spec) is None:
                said.append(f"{spec.name} has a neighbour not Full")
        return said

    def close(self) -> None:
        for process in self._processes:
            process.terminate()
            process.wait()


def _other_loopbacks(topology: Topology, spec: DeviceSpec) -> list[str]:
    """Every other router's loopback: what `spec`'s kernel must route once OSPF converged."""
    return [d.data["loopback"] for d in topology.devices if d.name != spec.name]


def _full_since(lab: FrrLab, spec: DeviceSpec) -> float | None:
    """When the router's last adjacency to a linked router went Full (FRR's own up-times)."""
    topology = lab.topology
    peers = {
        topology.device(peer[0]).data["loopback"]
        for i in spec.interfaces
        if (peer := topology.peer(spec.name, i.name)) is not None
    }
    now = time.time()
    shown = json.loads(lab.vtysh(spec.name, "show ip ospf neighbor json"))["neighbors"]
    full = {
        rid: now - entries[0]["upTimeInMsec"] / 1000
        for rid, entries in shown.items()
        if entries[0]["nbrState"].startswith("Full")
    }
    if not peers <= set(full):
        return None
    return max([0.0, *(full[rid] for rid in peers)])


@dataclass(frozen=True)
class BotRun:
    push: float  # approval -> every device finished
    converged: float  # approval -> every adjacency Full and every loopback routed
    done: float  # approval -> the change's last message (post-checks passed)
    checked: bool  # the last message reports passed post-checks on every router
    memory: float  # MiB per router
    cpu: float  # CPU seconds labbot's process used from approval to the change's end
    lines: dict[str, list[str]]  # what the bot pushed, per router


async def bot_run(topology: Topology, workdir: Path, request: str) -> BotRun:
    chat = TimedChat()
    settings = demo_settings(load_settings(data_dir=workdir))
    async with FrrLab.start(topology) as lab:
        watch = RouteWatch(lab)
        inventory = StaticInventory(lab.write_inventory(workdir / "hosts.yaml"))
        async with open_runtime(settings, chat, inventory=inventory) as bot:
            await bot.service.handle(ask(request, "alice"))
            await bot.service.handle(click(chat, "bob"))
            lines = _pushed_lines(chat.last_gate()[1])
            approved, cpu = time.time(), time.process_time()
            await bot.service.handle(click(chat, "bob"))
            cpu = time.process_time() - cpu
        try:
            converged = await asyncio.to_thread(watch.wait, lab, "with labbot")
        finally:
            watch.close()
        memory = statistics.mean(lab.memory_bytes().values()) / 2**20
    size = len(topology.devices)
    pushed = next(t for t, m in chat.timeline if f"{size}/{size} device(s) finished" in m.text)
    finished_at, last = chat.timeline[-1]
    if f"✓ {size} ✗ 0 of {size}" not in last.text:
        raise SystemExit(f"the change on {size} routers did not succeed: {last.text}")
    checked = len(last.blocks) == size and all("post-checks passed" in b.text for b in last.blocks)
    return BotRun(
        pushed - approved,
        max(0.0, converged - approved),
        finished_at - approved,
        checked,
        memory,
        cpu,
        lines,
    )


def _pushed_lines(gate: Message) -> dict[str, list[str]]:
    """Each router's configuration from the params gate (blocks titled `R1 configuration`; the
    gate's other blocks, such as `R1: where the lines land (its own configuration …)`, not)."""
    lines: dict[str, list[str]] = {}
    for block in (*gate.blocks, *gate.attachments):
        name, sep, _ = block.title.partition(" configuration")
        if sep and " " not in name:
            lines.setdefault(name, []).extend(block.text.splitlines())
    return lines


def protocol_run(topology: Topology, lines: dict[str, list[str]]) -> tuple[float, float]:
    """(seconds from every router configured (straight with vtysh, all at once) until every
    adjacency is Full and every loopback routed on every router, `console_logins` of the
    fresh lab before that)."""
    with FrrLab.run(topology) as lab, ThreadPoolExecutor(max_workers=len(lines)) as pool:
        logins = console_logins(lab, pool)
        watch = RouteWatch(lab)
        try:
            list(pool.map(lambda r: lab.vtysh(r, "configure terminal", *lines[r]), lines))
            applied = time.time()
            return max(0.0, watch.wait(lab, "OSPF alone") - applied), logins
        finally:
            watch.close()


def console_logins(lab: FrrLab, pool: ThreadPoolExecutor) -> float:
    """Seconds until every router's console showed its prompt, all opened at once by a bare
    socket client: the lab's own cost of a session (each starts a vtysh, ~50 ms of CPU), the
    floor under any push that opens a session per router."""

    def login(router: str) -> None:
        address = (lab.host, lab.port(router))
        with socket.create_connection(address, timeout=CONVERGE_SECONDS) as console:
            shown = b""
            while not re.search(rb"[#>]\s*$", shown):
                received = console.recv(4096)
                if not received:
                    raise NotConverged(f"{router}'s console closed before its prompt")
                shown += received

    started = time.monotonic()
    list(pool.map(login, lab.routers))
    return time.monotonic() - started


@dataclass
class Figures:
    """Per size (and shape): what the summary compares, one entry per run that converged."""

    pushes: dict[int, list[float]] = field(default_factory=dict)
    logins: dict[int, list[float]] = field(default_factory=dict)
    overheads: dict[tuple[str, int], list[float]] = field(default_factory=dict)

    def add(self, size: int, shape: str, run: BotRun, alone: float, logins: float) -> None:
        self.pushes.setdefault(size, []).append(run.push)
        self.logins.setdefault(size, []).append(logins)
        self.overheads.setdefault((shape, size), []).append(run.done - alone)


async def main(sizes: list[int], shapes: list[str], request: str, repeat: int) -> None:
    figures = Figures()
    header = (
        "routers shape   push s  converged s  passed s  detect s  OSPF alone s  overhead s  "
        "MiB/router  bot CPU s  logins s"
    )
    print(header)
    for _ in range(repeat):
        for shape in shapes:
            for size in sizes:
                if shape == "ring" and size < 3:
                    continue
                try:
                    run, alone, logins = await measure(size, shape, request)
                except NotConverged as exc:  # the lab's OSPF, not the bot: said, not counted
                    print(f"{size:>7} {shape:<6} not counted: {str(exc)[:200]}", flush=True)
                    continue
                figures.add(size, shape, run, alone, logins)
                note = "" if run.checked else "  (no passed post-checks in the thread)"
                print(
                    f"{size:>7} {shape:<6}{run.push:7.2f} {run.converged:12.2f} {run.done:9.2f} "
                    f"{run.done - run.converged:9.2f} {alone:13.2f} {run.done - alone:11.2f} "
                    f"{run.memory:11.1f} {run.cpu:10.2f} {logins:9.2f}{note}",
                    flush=True,
                )
    summarize(figures, repeat)


async def measure(size: int, shape: str, request: str) -> tuple[BotRun, float, float]:
    """One bot run, and one run of the protocol alone (after its consoles' logins) on fresh
    labs of the same topology."""
    topology = generated_topology(size, ring=shape == "ring")
    with tempfile.TemporaryDirectory(prefix="frr-lab-bench-") as tmp:
        run = await bot_run(topology, Path(tmp), request)
    alone, logins = await asyncio.to_thread(protocol_run, topology, run.lines)
    return run, alone, logins


def summarize(figures: Figures, repeat: int) -> None:
    """The goals, on the median of the `repeat` runs of each size (the host is shared), and
    the consoles' own logins beside the push."""
    median = "median of " + str(repeat) + " runs: " if repeat > 1 else ""
    pushes, logins, overheads = figures.pushes, figures.logins, figures.overheads
    if not pushes:
        return
    first, last = min(pushes), max(pushes)
    if first != last:
        ratio = statistics.median(pushes[last]) / statistics.median(pushes[first])
        verdict = "ok" if ratio <= 2.0 else "over the 2× goal"
        print(f"push({last})/push({first}): {median}{ratio:.2f}× ({verdict})")
        floor = [statistics.median(logins[size]) for size in (first, last)]
        print(
            f"consoles alone, every prompt at once (no bot): {first} router(s) {floor[0]:.2f} s, "
            f"{last} routers {floor[1]:.2f} s ({floor[1] / floor[0]:.1f}×)"
        )
    worst_key = max(overheads, key=lambda key: statistics.median(overheads[key]))
    worst = statistics.median(overheads[worst_key])
    verdict = "ok" if worst <= 1.0 else "over the 1 s goal"
    where = f"{worst_key[1]} {worst_key[0]}"
    print(f"bot overhead over OSPF alone: worst {median}{worst:.2f} s ({where}; {verdict})")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 3, 10, 20])
    parser.add_argument("--shapes", nargs="+", choices=["chain", "ring"], default=["chain", "ring"])
    parser.add_argument(
        "--timers", choices=sorted(REQUESTS), default="fast", help="OSPF timers of the change"
    )
    parser.add_argument("--repeat", type=int, default=1, help="runs per size (medians compared)")
    args = parser.parse_args()
    print(f"request: {REQUESTS[args.timers]}")
    asyncio.run(main(args.sizes, args.shapes, REQUESTS[args.timers], max(1, args.repeat)))
