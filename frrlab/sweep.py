"""Leftovers of FRR labs whose owner was killed (`kill -9`): found by their run file, removed.

Every lab writes `run.json` into its folder before it creates anything: its name prefix and
its owner (pid and that process's start time, so a reused pid is not mistaken for the owner).
A sweep looks at the run files of one name prefix and, for each run whose owner is gone,
ends its consoles (the processes naming its folder), its daemons (every process inside its
namespaces), deletes its namespaces, its SSH user (if any) and its folder. A run whose owner
lives is never touched.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from frrlab import netns
from frrlab.daemons import alive
from frrlab.ssh import remove_user

RUN_FILE = "run.json"
TERM_WAIT = 2.0


@dataclass(frozen=True)
class Swept:
    """What one sweep removed."""

    runs: list[str]
    namespaces: int
    processes: int

    def line(self) -> str:
        """One line for the person starting a lab."""
        if not self.runs:
            return "No leftovers of killed FRR labs found."
        return (
            f"Removed what {len(self.runs)} killed FRR lab(s) left ({', '.join(self.runs)}): "
            f"{self.namespaces} namespace(s), {self.processes} process(es), their folders."
        )


def write_run_file(folder: Path, prefix: str) -> None:
    """Record the lab's prefix and owner in its folder (before anything else is created)."""
    owner = os.getpid()
    record = {"prefix": prefix, "owner": owner, "owner_started": _started(owner)}
    (folder / RUN_FILE).write_text(json.dumps(record))


def sweep(prefix: str, temp_dir: str | Path | None = None) -> Swept:
    """Remove every run under `prefix` (a lab's `prefix` option) whose owner is gone."""
    runs, namespaces, processes = [], 0, 0
    root = Path(temp_dir or tempfile.gettempdir())
    for run_file in sorted(root.glob(f"{prefix}-*/{RUN_FILE}")):
        record = _record(run_file)
        if record is None or _alive(record):
            continue
        folder = run_file.parent
        names = netns.with_prefix(f"{record['prefix']}-")
        processes += _end(_naming(folder)) + len(netns.pids_inside(names))
        netns.destroy(names)
        remove_user(str(record["prefix"]))  # its SSH login, if it had one
        shutil.rmtree(folder, ignore_errors=True)
        runs.append(str(record["prefix"]))
        namespaces += len(names)
    return Swept(runs, namespaces, processes)


def _record(run_file: Path) -> dict[str, object] | None:
    """The run file's record; None when it is not one (being written, or foreign)."""
    try:
        record = json.loads(run_file.read_text())
    except (OSError, ValueError):
        return None
    folder = run_file.parent.name
    ok = isinstance(record, dict) and isinstance(record.get("prefix"), str)
    return record if ok and folder.startswith(f"{record['prefix']}-") else None


def _alive(record: dict[str, object]) -> bool:
    owner = record.get("owner")
    return isinstance(owner, int) and _started(owner) == record.get("owner_started")


def _started(pid: int) -> int | None:
    """The process's start time (clock ticks since boot), None when there is no such process."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat.rsplit(")", 1)[1].split()[19])


def _naming(folder: Path) -> list[int]:
    """Processes whose command line names the lab's folder: its consoles (socat and the vtysh
    sessions they started)."""
    needle = os.fsencode(folder)
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if needle in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def _end(pids: list[int]) -> int:
    """TERM, then KILL what is left; returns how many there were."""
    pending = pids
    for sig in (signal.SIGTERM, signal.SIGKILL):
        netns.signal_all(pending, sig)
        deadline = time.monotonic() + TERM_WAIT
        while pending and time.monotonic() < deadline:
            pending = [pid for pid in pending if alive(pid)]
            time.sleep(0.05)
    return len(pids)
