"""The template's twin for FRR: a real FRR router of its own, started for one trial.

`FrrTwin` fits `workflow.ports.ConfigTrial`. For each trial it starts a one-router lab (its own
namespaces and daemons; ~0.7 s), types the target's running configuration into it, reads it
back (`before`), types the template's lines as a console user would (vtysh runs a command its
node does not know in the first parent node that knows it: a line indented under `router ospf`
may land in global configuration) and reads it again (`after`). The twin is then ended; no
lab router is touched. A host that cannot run FRR (not root, FRR not installed) has no twin.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from typing import NamedTuple

from frrlab.host import FrrLabError, check_host
from frrlab.lab import FrrLab
from frrlab.topology import generated_topology

__all__ = ["FrrTwin"]

TWIN = "R1"  # the twin's one router
PLATFORMS = frozenset({"frr", "frr_telnet"})
# what `show running-config` prints that is not configuration
_NOT_CONFIG = re.compile(
    r"^(Building configuration\.\.\.|Current configuration:|frr version .*|"
    r"frr defaults .*|end|!.*)$"
)
_PROMPT = re.compile(r"^\S+[#>]\s*$")  # the exec prompt after `end`
_ECHO = re.compile(r"^\S+\(config[^)]*\)# ?(?P<line>.*)$")


class TwinRun(NamedTuple):
    """What the twin did with the lines: complaints, and its running config around them."""

    refused: list[str]  # `line: reply`, one per refused line
    before: str
    after: str


class FrrTwin:
    """A real FRR router per trial; at most `parallel` of them at a time."""

    def __init__(self, parallel: int = 2) -> None:
        self._slots = asyncio.Semaphore(parallel)

    async def trial(
        self, device: str, platform: str, running_config: str, lines: Sequence[str]
    ) -> TwinRun | None:
        if platform not in PLATFORMS or not can_run():
            return None
        async with self._slots:
            return await asyncio.to_thread(twin_run, running_config, lines)


def can_run() -> bool:
    """This host can start FRR routers (root, FRR and the tools installed)."""
    try:
        check_host()
    except FrrLabError:
        return False
    return True


def twin_run(running_config: str, lines: Sequence[str]) -> TwinRun:
    """`lines` typed into a fresh FRR router holding `running_config`."""
    with FrrLab.run(generated_topology(1), prefix="frr-twin") as twin:
        twin.type_lines(TWIN, ["configure terminal", *config_lines(running_config), "end"])
        before = twin.vtysh(TWIN, "show running-config")
        typed = twin.type_lines(TWIN, ["configure terminal", *lines, "end"])
        after = twin.vtysh(TWIN, "show running-config")
    return TwinRun(refused_lines(typed), before, after)


def config_lines(running_config: str) -> list[str]:
    """The configuration in what `show running-config` printed, to be typed back in."""
    return [line for line in running_config.splitlines() if not _NOT_CONFIG.match(line)]


def refused_lines(typed: str) -> list[str]:
    """`line: reply` for each typed line vtysh answered: configuration mode answers a line it
    takes with nothing, so any answer is a refusal, with `%` (`% Unknown command`) or without
    (bgpd's `BGP is already running; AS is 65099`)."""
    refused = []
    last = ""
    for output in typed.splitlines():
        echo = _ECHO.match(output)
        if echo is not None:
            last = echo["line"].strip()
        elif output.strip() and last and not _PROMPT.match(output):
            refused.append(f"{last}: {output.strip()}")
            last = ""  # one reply a line: its first line says it
    return refused
