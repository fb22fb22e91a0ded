"""The clock a test run sets: libfaketime's variables, passed on to the processes tests start with
an environment of their own, so a run under `faketime` fakes labbot's replicas too (a replica on
the real clock refuses the clicks the faked test signs as stale)."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path


def clock_env() -> dict[str, str]:
    """LD_PRELOAD and FAKETIME* as this process has them (empty on the real clock)."""
    return {
        name: value
        for name, value in os.environ.items()
        if name == "LD_PRELOAD" or name.startswith("FAKETIME")
    }


def machine_clock_env() -> dict[str, str]:
    """This process's environment without libfaketime's variables: for a server that is not
    labbot's (PostgreSQL refuses to start under libfaketime), which keeps the machine's clock."""
    faked = clock_env()
    return {name: value for name, value in os.environ.items() if name not in faked}


def clock_at(when: datetime) -> dict[str, str]:
    """The environment of a process whose clock reads `when` (UTC) as it starts and runs on from
    there: libfaketime (Debian package faketime, in .ci/debian-packages). The processes it starts
    (render workers) go on from its time rather than start at `when` again."""
    found = sorted(Path("/usr/lib").glob("*/faketime/libfaketime.so.1"))
    assert found, "libfaketime is not installed (Debian package faketime)"
    start = when.astimezone(UTC).strftime("@%Y-%m-%d %H:%M:%S")
    faked = {"LD_PRELOAD": str(found[0]), "FAKETIME": start, "FAKETIME_DONT_RESET": "1"}
    return {**machine_clock_env(), **faked, "TZ": "UTC"}
