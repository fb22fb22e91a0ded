"""The bot under attack: the real decision service, graph, saver (SQLite) and simulated lab."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from adapters.chat import ThreadRef
from bot.cli.demo import DEMO_CREDENTIALS, demo_settings
from bot.runtime.wiring import Runtime, open_runtime
from bot.settings import load_settings
from labsim import Lab, demo_topology
from tests.bot.chat import RecordingAdapter
from workflow.devices.inventories.static import StaticInventory


@asynccontextmanager
async def attacked_lab(routers: int = 2) -> AsyncIterator[Lab]:
    """Routers R1..Rn and the Arista switch SW1."""
    async with Lab.start(demo_topology(routers), **DEMO_CREDENTIALS) as lab:
        yield lab


@asynccontextmanager
async def attacked_bot(
    tmp_path: Path, lab: Lab, chat: RecordingAdapter, **settings: Any
) -> AsyncIterator[Runtime]:
    config = demo_settings(load_settings(data_dir=tmp_path, **settings))
    inventory = StaticInventory(lab.write_inventory(tmp_path / "hosts.yaml"))
    async with open_runtime(config, chat, inventory=inventory) as runtime:
        yield runtime


def thread(name: str) -> ThreadRef:
    """A thread of its own per attempt, so one attempt's gate never blocks the next."""
    return ThreadRef("console", "lab-channel", name)


def configs(lab: Lab) -> dict[str, str]:
    return {name: lab.device(name).running_config() for name in lab_names(lab)}


def lab_names(lab: Lab) -> list[str]:
    return [spec.name for spec in lab.topology.devices]


def reads(lab: Lab) -> dict[str, int]:
    """Commands each simulated device has seen so far (a read is at least one)."""
    return {name: len(lab.device(name).commands_seen) for name in lab_names(lab)}
