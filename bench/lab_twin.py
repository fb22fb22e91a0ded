"""Benchmark: the lab's twin before Execute against the real push and converge, on real FRR labs
of 1 to 20 routers.

    python -m bench.lab_twin [--sizes 1 3 10 20] [--repeat N]   (root)

For each size, a chain of FRR routers (frrlab, vtysh consoles on 127.0.0.1) and the real
decision service (library planner, SQLite, Nornir + netmiko over the consoles, the lab's twin
on: LABBOT_LAB_TWINS=1); alice asks "configure ospf on all routers fast=true", bob approves
the template — labbot previews and tries the lines on a twin of the whole lab — then Execute.
It prints per run:
- twin s: the twin's own time as the gate says it (started, the previewed lines typed, the
  post-checks polled until they pass; its teardown aside);
- gate s: template approval → the params gate posted (rendering, the template's twin, the lab's
  twin with its teardown): what an approver waits for;
- push s, converged s, passed s: as `bench.converge` times them on the real lab, from the
  Execute click: every device finished, every adjacency Full and every loopback routed (FRR's
  neighbour up-times, `ip -ts monitor route`), the post-checks passed;
- twin/passed: what the twin costs before the gate against what the real change takes after;
- left: namespaces, processes or folders of twins found afterwards (must be 0).
The development host is shared: run it as `nice -n -10 python -m bench.lab_twin` there.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench.converge import NotConverged, RouteWatch, TimedChat
from bot.cli.demo import demo_settings
from bot.runtime.wiring import open_runtime
from bot.settings import load_settings
from frrlab import FrrLab, generated_topology, netns
from frrlab.lab_twin import TWIN_PREFIX
from tests.bot.chat import ask, click
from workflow.devices.inventories.static import StaticInventory

REQUEST = "configure ospf on all routers fast=true"
_TWIN = re.compile(r"On a twin of the lab \((\d+) routers, ([\d.]+) s\)")


@dataclass(frozen=True)
class TwinRun:
    twin: float  # the twin's own seconds, as the gate says them
    gate: float  # template approval -> params gate posted
    push: float  # Execute -> every device finished
    converged: float  # Execute -> every adjacency Full and every loopback routed
    passed: float  # Execute -> the change's last message (post-checks passed)
    left: int  # twins' namespaces, processes and folders found afterwards


async def twin_run(size: int, workdir: Path) -> TwinRun:
    chat = TimedChat()
    settings = demo_settings(load_settings(data_dir=workdir, lab_twins=1))
    async with FrrLab.start(generated_topology(size)) as lab:
        watch = RouteWatch(lab)
        inventory = StaticInventory(lab.write_inventory(workdir / "hosts.yaml"))
        try:
            async with open_runtime(settings, chat, inventory=inventory) as bot:
                await bot.service.handle(ask(REQUEST, "alice"))
                started = time.time()
                await bot.service.handle(click(chat, "bob"))
                gate_at, gate = chat.timeline[-1][0], chat.last_gate()[1]
                said = _TWIN.search(gate.text)
                if said is None or int(said[1]) != size:
                    raise SystemExit(f"no twin's answer at the gate on {size} routers: {gate.text}")
                left = len(leftovers())
                approved = time.time()
                await bot.service.handle(click(chat, "bob"))
            converged = await asyncio.to_thread(watch.wait, lab, "with labbot")
        finally:
            watch.close()
    pushed = next(t for t, m in chat.timeline if f"{size}/{size} device(s) finished" in m.text)
    finished_at, last = chat.timeline[-1]
    if f"✓ {size} ✗ 0 of {size}" not in last.text:
        raise SystemExit(f"the change on {size} routers did not succeed: {last.text}")
    return TwinRun(
        twin=float(said[2]),
        gate=gate_at - started,
        push=pushed - approved,
        converged=max(0.0, converged - approved),
        passed=finished_at - approved,
        left=left + len(leftovers()),
    )


def leftovers() -> list[str]:
    """Namespaces, folders and processes of lab twins still on this host."""
    found = netns.with_prefix(TWIN_PREFIX)
    found += [str(path) for path in Path(tempfile.gettempdir()).glob(f"{TWIN_PREFIX}-*")]
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and TWIN_PREFIX.encode() in (proc / "cmdline").read_bytes():
                found.append(f"process {proc.name}")
        except OSError:
            continue
    return found


async def main(sizes: list[int], repeat: int) -> None:
    print(f"request: {REQUEST}")
    print("routers  twin s  gate s  push s  converged s  passed s  twin/passed  left")
    runs: dict[int, list[TwinRun]] = {}
    for _ in range(repeat):
        for size in sizes:
            with tempfile.TemporaryDirectory(prefix="frr-lab-bench-") as tmp:
                try:
                    run = await twin_run(size, Path(tmp))
                except NotConverged as exc:  # the lab's OSPF, not the twin: said, not counted
                    print(f"{size:>7} not counted: {str(exc)[:200]}", flush=True)
                    continue
            runs.setdefault(size, []).append(run)
            print(
                f"{size:>7} {run.twin:7.1f} {run.gate:7.2f} {run.push:7.2f} {run.converged:12.2f} "
                f"{run.passed:9.2f} {run.twin / run.passed:12.2f} {run.left:5d}",
                flush=True,
            )
    if repeat > 1:
        print(f"medians of {repeat} runs:")
        for size, done in runs.items():
            twin, gate = (statistics.median(getattr(r, f) for r in done) for f in ("twin", "gate"))
            passed = statistics.median(r.passed for r in done)
            print(f"{size:>7} twin {twin:.1f} s, gate {gate:.2f} s, passed {passed:.2f} s")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 3, 10, 20])
    parser.add_argument("--repeat", type=int, default=1, help="runs per size (medians printed)")
    args = parser.parse_args()
    asyncio.run(main(args.sizes, max(1, args.repeat)))
