"""Fixtures for storage tests: a fresh SQLite file or a fresh PostgreSQL database per test."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from storage.db import make_engine, parse_url, upgrade_engine


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


class fresh_postgres_database:
    """`async with fresh_postgres_database(url) as db_url`: CREATE DATABASE ... DROP DATABASE."""

    def __init__(self, server_url: str) -> None:
        self.server = parse_url(server_url)
        self.name = "labbot_" + uuid.uuid4().hex[:12]
        self.admin = make_engine(server_url).execution_options(isolation_level="AUTOCOMMIT")

    async def __aenter__(self) -> str:
        async with self.admin.connect() as conn:
            await conn.execute(sa.text(f'CREATE DATABASE "{self.name}"'))
        return self.server.set(database=self.name).render_as_string(hide_password=False)

    async def __aexit__(self, *exc: object) -> None:
        async with self.admin.connect() as conn:
            await conn.execute(sa.text(f'DROP DATABASE "{self.name}" WITH (FORCE)'))
        await self.admin.dispose()
