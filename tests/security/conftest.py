"""A database on each backend for the tests of caps and budgets that must hold across replicas."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.support.postgres import fresh_postgres_database


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
async def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """An empty SQLite file, or a fresh PostgreSQL database of the test's own."""
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'labbot.db'}"
        return
    async with fresh_postgres_database(request.getfixturevalue("postgres_url")) as url:
        yield url
