"""The clock a test run sets: libfaketime's variables, passed on to the processes tests start with
an environment of their own, so a run under `faketime` fakes labbot's replicas too (a replica on
the real clock refuses the clicks the faked test signs as stale). Servers that are not labbot's
keep the machine's clock; labbot in a container gets the library mounted (its image has none)."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

# Where a container finds the test's libfaketime (mounted read-only from the host).
IN_CONTAINER = Path("/opt/test-clock")


def clock_env() -> dict[str, str]:
    """LD_PRELOAD and FAKETIME* as this process has them (empty on the real clock)."""
    return {
        name: value
        for name, value in os.environ.items()
        if name == "LD_PRELOAD" or name.startswith("FAKETIME")
    }


def machine_clock_env() -> dict[str, str]:
    """This process's environment without libfaketime's variables: for a program that is not
    labbot's (PostgreSQL refuses to start under libfaketime, docker-compose's `logs` hangs), which
    keeps the machine's clock."""
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


def faking_library() -> Path | None:
    """The libfaketime file loaded in this process (LD_PRELOAD may name it through the dynamic
    linker's $LIB), or None on the real clock."""
    for line in Path("/proc/self/maps").read_text().splitlines():
        path = Path(line.split()[-1])
        if path.name.startswith("libfaketime"):
            return path
    return None


def container_clock() -> tuple[list[str], dict[str, str]]:
    """(volumes, environment) that put a container on this process's clock: the library mounted
    at IN_CONTAINER and FAKETIME*, without FAKETIME_SHARED (the host's semaphore, which the
    container cannot open). Both empty on the real clock."""
    library = faking_library()
    if library is None:
        return [], {}
    inside = IN_CONTAINER / library.name
    settings = {k: v for k, v in clock_env().items() if k.startswith("FAKETIME")}
    settings.pop("FAKETIME_SHARED", None)
    return [f"{library}:{inside}:ro"], settings | {"LD_PRELOAD": str(inside)}
