"""Fixtures of the scale tests: a fresh PostgreSQL database per test (the deployment itself:
tests.scale.deployment; the Slack stand-in: tests/conftest.py).

Every scale test carries `xdist_group("deployments")`, as the container tests do: under
pytest-xdist they run one after another on one worker, so two of these many-process deployments
never share the cores at once (and the container images are built once)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.support.postgres import fresh_postgres_database


@pytest.fixture
async def database(postgres_url: str) -> AsyncIterator[str]:
    async with fresh_postgres_database(postgres_url) as url:
        yield url
