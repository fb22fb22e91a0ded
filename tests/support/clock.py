"""The clock a test run sets: libfaketime's variables, passed on to the processes tests start with
an environment of their own, so a run under `faketime` fakes labbot's replicas too (a replica on
the real clock refuses the clicks the faked test signs as stale)."""

from __future__ import annotations

import os


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
