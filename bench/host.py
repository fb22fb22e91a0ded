"""What priority the host's scheduler gives a benchmark run: with autogroup on (sched(7)), a
process's nice ranks it only against its own session; against other sessions — other users'
test runs on a shared host — each session's group counts alike, at the group's own nice."""

from __future__ import annotations

import os
from pathlib import Path

AUTOGROUP_SWITCH = Path("/proc/sys/kernel/sched_autogroup_enabled")
OWN_GROUP = Path("/proc/self/autogroup")  # "/autogroup-123 nice 0"


def scheduling() -> str:
    """One line to print beside the figures: the run's nice, and its session group's."""
    nice = os.nice(0)
    try:
        autogroup = AUTOGROUP_SWITCH.read_text().strip() == "1"
        group_nice = int(OWN_GROUP.read_text().split()[-1]) if autogroup else 0
    except (OSError, ValueError, IndexError):
        autogroup = False
    if not autogroup:
        return f"scheduler: nice {nice} against every process on the host"
    return (
        f"scheduler: autogroup on: nice {nice} ranks this run only within its session; its "
        f"session's group runs at nice {group_nice} against other sessions' (setsid, then "
        f"`echo -10 > /proc/self/autogroup`, raises it)"
    )
