"""Benchmark: labbot's push beside a bare Nornir + nornir_netmiko script, on the same simulated lab.

    .venv/bin/python -m bench.push [--sizes 1 100 300 1000] [--repeat 2] [--sessions 32]  (niced)

Each size gets one simulated lab (labsim, IOS-like routers on 127.0.0.1 telnet consoles, like
GNS3 nodes, in a process of its own) and the same lines are pushed to every device both ways,
alternating which goes first:
- **labbot**: the real gateway path (static inventory, SQLite locks and sealed backups on the
  checkpointer's engine as the bot builds them, Nornir's threaded runner, privileged read, drift
  check, backup, `netmiko_send_config`, the config read again, verification, held sessions
  closed);
- **bare**: what a user would write instead: `InitNornir` on the lab's SimpleInventory file and
  `nr.run(netmiko_send_config, config_commands=...)` (nornir_netmiko's own connection plugin),
  with as many worker threads as labbot holds sessions at once (`--sessions`, by default
  LABBOT_DEVICE_SESSIONS' default).

Each push runs in a child process of its own, so its CPU time (every thread) and peak resident
memory are its own. Per size it prints the wall time each way (median of `--repeat`), their
ratio, labbot's CPU seconds per device and both peak RSS; then labbot's time at each size over
its time at the smallest; the last line is `labbot/bare at N devices: X.XX` for the largest size.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Literal

import yaml

from workflow.devices.session_limits import DEFAULT_SESSIONS

ROOT = Path(__file__).resolve().parent.parent

CHANGE = [
    "router ospf 1",
    " router-id 10.255.0.1",
    " network 10.0.0.0 0.255.255.255 area 0",
    "interface Loopback0",
    " description managed by labbot",
]
USERNAME, PASSWORD, SECRET = "admin", "admin", "enable"
Way = Literal["labbot", "bare"]
WAYS: tuple[Way, Way] = ("labbot", "bare")


@contextmanager
def lab_process(size: int, inventory: Path) -> Iterator[None]:
    """The simulated lab in a process of its own (`labsim.serve`), as real devices are not in
    the pushing process: its CPU work does not compete with Nornir's threads for the GIL."""
    code = (
        "import asyncio; from labsim import serve, demo_topology; "
        f"asyncio.run(serve(demo_topology({size}, switch=False), inventory={str(inventory)!r}, "
        f"ssh=False, username={USERNAME!r}, password={PASSWORD!r}, secret={SECRET!r}))"
    )
    process = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while not inventory.exists():
            if process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"the simulated lab of {size} devices did not start")
            time.sleep(0.05)
        yield
    finally:
        process.terminate()
        process.wait()


async def labbot_push(inventory: Path, workdir: Path, change_id: str, sessions: int) -> int:
    """labbot's gateway push of CHANGE to every device of `inventory`; devices that succeeded."""
    from bot.views.failure import failure_text
    from storage.checkpointer import SQLAlchemySaver
    from storage.config_backups import ConfigBackupStore
    from storage.encryption import StorageKeys, new_key
    from storage.locks import DeviceLockStore
    from workflow.devices.gateway import NornirGateway
    from workflow.devices.inventories.static import StaticInventory

    # the stores on the checkpointer's engine, as bot/runtime/wiring.py builds them
    async with SQLAlchemySaver.from_url(
        f"sqlite+aiosqlite:///{workdir / f'{change_id}.db'}"
    ) as saver:
        engine = saver.engine
        gateway = NornirGateway(
            StaticInventory(inventory),
            locks=DeviceLockStore(engine),
            backups=ConfigBackupStore(engine, StorageKeys([new_key()])),
            say=failure_text,
            username=USERNAME,
            password=PASSWORD,
            secret=SECRET,
            sessions=sessions,
        )
        devices, _, _ = await gateway.devices()
        plan = {device.name: CHANGE for device in devices}
        started = time.perf_counter(), time.process_time()
        response = await gateway.push(change_id, plan)
        report(started)
    return int(response["successful"])


def bare_push(inventory: Path, sessions: int) -> int:
    """The bare script: InitNornir on the lab's hosts file, netmiko_send_config to every host."""
    from nornir import InitNornir
    from nornir_netmiko.tasks import netmiko_send_config

    nr = InitNornir(
        runner={"plugin": "threaded", "options": {"num_workers": sessions}},
        inventory={"plugin": "SimpleInventory", "options": {"host_file": str(inventory)}},
        logging={"enabled": False},
    )
    nr.inventory.defaults.username = USERNAME
    nr.inventory.defaults.password = PASSWORD
    nr.inventory.defaults.connection_options["netmiko"] = _secret_option()
    started = time.perf_counter(), time.process_time()
    result = nr.run(task=netmiko_send_config, config_commands=CHANGE)
    nr.close_connections()  # as labbot's push closes its sessions, and as the script ends
    report(started)
    return len(result) - len(result.failed_hosts)


def _secret_option() -> object:
    from nornir.core.inventory import ConnectionOptions

    return ConnectionOptions(extras={"secret": SECRET})


def report(started: tuple[float, float]) -> None:
    """Print (for the parent) this push's wall and CPU seconds and the process's peak RSS."""
    wall, cpu = time.perf_counter() - started[0], time.process_time() - started[1]
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    print(json.dumps({"wall": wall, "cpu": cpu, "rss": peak_mib}), flush=True)


def child(way: Way, inventory: Path, workdir: Path, change_id: str, sessions: int) -> None:
    """One push in this (child) process; exits non-zero when a device failed."""
    size = len(yaml.safe_load(inventory.read_text()))
    if way == "labbot":
        done = asyncio.run(labbot_push(inventory, workdir, change_id, sessions))
    else:
        done = bare_push(inventory, sessions)
    if done != size:
        raise SystemExit(f"{way}: {size - done} of {size} devices failed")


def measured(
    way: Way, inventory: Path, workdir: Path, change_id: str, sessions: int
) -> dict[str, float]:
    """Run one push in a child process; its wall, CPU and peak RSS."""
    command = [sys.executable, "-m", "bench.push", "--child", way, "--inventory", str(inventory)]
    command += ["--workdir", str(workdir), "--change", change_id, "--sessions", str(sessions)]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"the {way} push failed: {done.stderr.strip()[-800:]}")
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def one_size(
    size: int, repeat: int, workdir: Path, sessions: int
) -> dict[Way, list[dict[str, float]]]:
    """`repeat` pushes each way to one lab of `size` devices, alternating which goes first."""
    inventory = workdir / f"hosts-{size}.yaml"
    runs: dict[Way, list[dict[str, float]]] = {"labbot": [], "bare": []}
    with lab_process(size, inventory):
        for run in range(repeat):
            for way in WAYS if run % 2 == 0 else WAYS[::-1]:
                runs[way].append(
                    measured(way, inventory, workdir, f"bench-{size}-{run}-{way}", sessions)
                )
    return runs


def median(runs: list[dict[str, float]], key: str) -> float:
    return statistics.median(run[key] for run in runs)


def main(sizes: list[int], repeat: int, sessions: int) -> None:
    walls: dict[int, float] = {}
    ratios: dict[int, float] = {}
    with tempfile.TemporaryDirectory(prefix="labbot-bench-") as tmp:
        for size in sizes:
            runs = one_size(size, repeat, Path(tmp), sessions)
            labbot, bare = median(runs["labbot"], "wall"), median(runs["bare"], "wall")
            walls[size], ratios[size] = labbot, labbot / bare
            shown = ", ".join(f"{run['wall']:.2f}" for run in runs["labbot"])
            cpu = median(runs["labbot"], "cpu") / size
            print(
                f"{size:>5} devices: labbot {labbot:6.2f} s (runs {shown}), bare {bare:6.2f} s, "
                f"labbot/bare {ratios[size]:.2f}; labbot CPU {cpu:.4f} s/device, peak RSS "
                f"labbot {median(runs['labbot'], 'rss'):.0f} MiB, "
                f"bare {median(runs['bare'], 'rss'):.0f} MiB",
                flush=True,
            )
    first = min(sizes)
    for size in sorted(walls):
        if size != first:
            print(f"labbot {size}/{first} devices: {walls[size] / walls[first]:.2f}x")
    print(f"labbot/bare at {max(sizes)} devices: {ratios[max(sizes)]:.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 100, 300, 1000])
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--sessions", type=int, default=DEFAULT_SESSIONS)
    parser.add_argument("--child", choices=WAYS, help=argparse.SUPPRESS)
    parser.add_argument("--inventory", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--workdir", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--change", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.inventory, args.workdir, args.change, args.sessions)
    else:
        main(args.sizes, args.repeat, args.sessions)
