"""Fixtures shared by every test package: the real servers the tests run against."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.fakes.openai_server import OpenAIStandIn


@pytest.fixture(scope="session")
def postgres_url() -> str:
    """URL of the PostgreSQL server started by `.ci/postgres.sh start` (CI starts it)."""
    url = os.environ.get("LABBOT_TEST_POSTGRES_URL")
    if not url:
        pytest.fail(
            "LABBOT_TEST_POSTGRES_URL is not set: run "
            "`export LABBOT_TEST_POSTGRES_URL=$(.ci/postgres.sh start)` (scripts/test does)"
        )
    return url


@pytest.fixture
def llm() -> Iterator[OpenAIStandIn]:
    """A local OpenAI-compatible server the real ChatOpenAI client talks to; tests script it."""
    with OpenAIStandIn() as server:
        yield server
