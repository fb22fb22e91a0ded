"""Fixtures of the scale tests: a fresh PostgreSQL database and the Slack stand-in per test
(the deployment itself: tests.scale.deployment).

Every scale test carries `xdist_group("deployments")`, as the container tests do: under
pytest-xdist they run one after another on one worker, so two of these many-process deployments
never share the cores at once (and the container images are built once)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.fakes.slack_api import SlackApiStandIn
from tests.scale.harness import PEOPLE
from tests.support.postgres import fresh_postgres_database


@pytest.fixture
async def database(postgres_url: str) -> AsyncIterator[str]:
    async with fresh_postgres_database(postgres_url) as url:
        yield url


@pytest.fixture
async def slack_api() -> AsyncIterator[SlackApiStandIn]:
    async with SlackApiStandIn(users=dict(PEOPLE)) as api:
        yield api
