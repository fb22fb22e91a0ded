"""Fixtures of the workflow tests."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from storage.checkpointer import SQLAlchemySaver


@pytest.fixture
async def saver(tmp_path: Path) -> AsyncIterator[SQLAlchemySaver]:
    """The real checkpointer on a fresh SQLite file."""
    async with SQLAlchemySaver.from_url(f"sqlite+aiosqlite:///{tmp_path / 'graph.db'}") as saver:
        yield saver
