"""Try configuration lines on a throwaway copy of a device: the template test before approval.

`SimTrial` fits `workflow.ports.ConfigTrial`: it starts a simulated device in-process from the
target's running configuration (no sockets, no threads of its own), types `configure terminal`,
the lines and `end` into a CLI session, and reports every line the device refused with the
device's own words (`% Invalid input detected at '^' marker.`) and the copy's running config
before and after, so the caller sees where each line landed (IOS runs a command its sub-mode
does not know in global configuration). The copy is then dropped, so nothing of the lab
changes. Platforms without a simulator answer None ("not tested").
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import NamedTuple

from labsim.cli import CliSession
from labsim.device import SimDevice
from labsim.vendors import platform_by_name

__all__ = ["SimTrial"]


class TwinRun(NamedTuple):
    """What the copy did with the lines: complaints, and its running config around them."""

    refused: list[str]  # `line: reply`, one per refused line
    before: str
    after: str


class SimTrial:
    async def trial(
        self, device: str, platform: str, running_config: str, lines: Sequence[str]
    ) -> TwinRun | None:
        try:
            platform_by_name(platform)
        except ValueError:
            return None
        # Parsing a large running config takes a few milliseconds: off the event loop.
        return await asyncio.to_thread(twin_run, device, platform, running_config, lines)


def twin_run(device: str, platform: str, running_config: str, lines: Sequence[str]) -> TwinRun:
    """The lines typed into a simulated copy of `device`: what it refused, its config around."""
    copy = SimDevice.from_running_config(device, platform, running_config)
    before = copy.running_config()
    refused = _typed(copy, lines)
    return TwinRun(refused, before, copy.running_config())


def refused_lines(
    device: str, platform: str, running_config: str, lines: Sequence[str]
) -> list[str]:
    """`line: reply` for each line the simulated copy of `device` refuses."""
    return _typed(SimDevice.from_running_config(device, platform, running_config), lines)


def _typed(copy: SimDevice, lines: Sequence[str]) -> list[str]:
    session = CliSession(copy, privileged=True, secret="")
    session.feed_line("configure terminal")
    refused = []
    for line in lines:
        reply = session.feed_line(line)
        complaint = next((r.strip() for r in reply.splitlines() if r.startswith("%")), None)
        if complaint is not None:
            refused.append(f"{line.strip()}: {complaint}")
    session.feed_line("end")
    return refused
