"""Fixtures for storage tests: a fresh SQLite file or a fresh PostgreSQL database per test."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from storage.db import make_engine, upgrade_engine
from tests.support.postgres import fresh_postgres_database


@pytest.fixture(params=["sqlite", "postgres"])
async def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """A migrated-nothing, empty database on each backend (tests on PostgreSQL get their own
    database, so they never see other tests' rows)."""
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'labbot.db'}"
        return
    async with fresh_postgres_database(request.getfixturevalue("postgres_url")) as url:
        yield url


@pytest.fixture
async def engine(database_url: str) -> AsyncIterator[AsyncEngine]:
    """An engine on a database migrated to head."""
    engine = make_engine(database_url)
    await upgrade_engine(engine)
    yield engine
    await engine.dispose()
