"""Fixtures for device tests: the real lock and backup stores on a SQLite file, and a rig
(tests.workflow.devices.rig) of a simulated lab and the gateway in front of it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from storage.config_backups import ConfigBackupStore
from storage.db import make_engine, upgrade_engine
from storage.locks import DeviceLockStore
from tests.workflow.devices.rig import Rig, Stores, start_rig


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[AsyncEngine]:
    engine = make_engine(f"sqlite+aiosqlite:///{tmp_path / 'labbot.db'}")
    await upgrade_engine(engine)
    yield engine
    await engine.dispose()


@pytest.fixture
def stores(engine: AsyncEngine) -> Stores:
    return Stores(DeviceLockStore(engine), ConfigBackupStore(engine))


@pytest.fixture
async def rig(tmp_path: Path, stores: Stores) -> AsyncIterator[Rig]:
    """Three routers and a switch (demo topology), over telnet like GNS3 consoles."""
    async for value in start_rig(tmp_path, stores, 3):
        yield value
