"""Fixtures of the workflow tests: the checkpointer, and the real device lock and backup stores,
each on a fresh SQLite file."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from storage.checkpointer import SQLAlchemySaver
from storage.config_backups import ConfigBackupStore
from storage.db import make_engine, upgrade_engine
from storage.encryption import StorageKeys, new_key
from storage.locks import DeviceLockStore
from tests.workflow.devices.rig import Stores


@pytest.fixture
async def saver(tmp_path: Path) -> AsyncIterator[SQLAlchemySaver]:
    """The real checkpointer on a fresh SQLite file."""
    async with SQLAlchemySaver.from_url(f"sqlite+aiosqlite:///{tmp_path / 'graph.db'}") as saver:
        yield saver


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[AsyncEngine]:
    engine = make_engine(f"sqlite+aiosqlite:///{tmp_path / 'labbot.db'}")
    await upgrade_engine(engine)
    yield engine
    await engine.dispose()


@pytest.fixture
def stores(engine: AsyncEngine) -> Stores:
    return Stores(DeviceLockStore(engine), ConfigBackupStore(engine, StorageKeys([new_key()])))
