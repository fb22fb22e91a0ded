"""Benchmark: the same change pushed to 1, 10 and 100 simulated devices over telnet.

    .venv/bin/python -m bench.push [--sizes 1 10 100] [--repeat 2]

Each size gets its own simulated lab (labsim, IOS-like routers on 127.0.0.1 telnet consoles,
like GNS3 nodes, in a separate process) and the real gateway path: static inventory, SQLite
locks and backups, Nornir's threaded runner with one worker per device, a console probe,
`show running-config` before, `netmiko_send_config`, `show running-config` after,
verification. The goal is a ratio 100/1 of at most 2.0 (1.0 would be perfectly parallel).

What bounds it: netmiko's telnet login sleeps 1 s before it reads (fixed, even with fast_cli),
so one device takes about 1.4 s; with 100 devices the 100 worker threads share one GIL (2 cores
here), and netmiko's read loops poll every 10 ms, so the per-device commands slow down; the
backups are written one at a time (SQLite has one writer).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from bot.failures import failure_text
from storage.config_backups import ConfigBackupStore
from storage.db import make_engine, upgrade_engine
from storage.encryption import StorageKeys, new_key
from storage.locks import DeviceLockStore
from workflow.devices.gateway import NornirGateway
from workflow.devices.static import StaticInventory

ROOT = Path(__file__).resolve().parent.parent

CHANGE = [
    "router ospf 1",
    " router-id 10.255.0.1",
    " network 10.0.0.0 0.255.255.255 area 0",
    "interface Loopback0",
    " description managed by labbot",
]
USERNAME, PASSWORD, SECRET = "admin", "admin", "enable"


@contextmanager
def lab_process(size: int, inventory: Path) -> Iterator[None]:
    """The simulated lab in a process of its own (`labsim.serve`), as real devices are not in
    labbot's process: its CPU work does not compete with Nornir's threads for the GIL."""
    code = (
        "import asyncio; from labsim import serve, demo_topology; "
        f"asyncio.run(serve(demo_topology({size}, switch=False), inventory={str(inventory)!r}, "
        f"ssh=False, username={USERNAME!r}, password={PASSWORD!r}, secret={SECRET!r}))"
    )
    process = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while not inventory.exists():
            if process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"the simulated lab of {size} devices did not start")
            time.sleep(0.05)
        yield
    finally:
        process.terminate()
        process.wait()


async def push_once(size: int, workdir: Path, run: int) -> float:
    """Wall time of one push of CHANGE to `size` fresh devices."""
    engine = make_engine(f"sqlite+aiosqlite:///{workdir / f'bench-{size}-{run}.db'}")
    await upgrade_engine(engine)
    inventory = workdir / f"hosts-{size}-{run}.yaml"
    try:
        with lab_process(size, inventory):
            gateway = NornirGateway(
                StaticInventory(inventory),
                locks=DeviceLockStore(engine),
                backups=ConfigBackupStore(engine, StorageKeys([new_key()])),
                say=failure_text,
                username=USERNAME,
                password=PASSWORD,
                secret=SECRET,
            )
            plan = {f"R{index}": CHANGE for index in range(1, size + 1)}
            started = time.perf_counter()
            response = await gateway.push(f"bench-{size}-{run}", plan)
            elapsed = time.perf_counter() - started
    finally:
        await engine.dispose()
    if response["successful"] != size:
        failed = [item for item in response["data"] if item["status"] == "failed"][:3]
        raise SystemExit(f"push to {size} devices failed: {failed}")
    return elapsed


async def main(sizes: list[int], repeat: int) -> None:
    with tempfile.TemporaryDirectory(prefix="labbot-bench-") as tmp:
        times: dict[int, float] = {}
        for size in sizes:
            runs = [await push_once(size, Path(tmp), run) for run in range(repeat)]
            times[size] = statistics.median(runs)
            shown = ", ".join(f"{value:.2f}" for value in runs)
            print(f"{size:>4} devices: {times[size]:6.2f} s median  (runs: {shown})")
        first, last = min(sizes), max(sizes)
        if first != last:
            ratio = times[last] / times[first]
            verdict = "ok" if ratio <= 2.0 else "over the 2.0 goal"
            print(f"ratio {last}/{first}: {ratio:.2f}x ({verdict})")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 10, 100])
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    asyncio.run(main(args.sizes, args.repeat))
