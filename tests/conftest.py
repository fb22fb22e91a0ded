"""Fixtures shared by every test package: the real servers the tests run against."""

from __future__ import annotations

import logging
import os
from collections.abc import AsyncIterator, Iterator

import pytest

from bot.views.redact import ScrubLogs
from frrlab import FrrLabError, check_host
from tests.fakes.openai_server import OpenAIStandIn
from tests.fakes.slack_api import PEOPLE, SlackApiStandIn

# the security attempts table, printed at the end of every run (xdist workers' counts added up);
# the guard that xdist_group marks reach pytest-xdist's scheduler
pytest_plugins = ("tests.security.summary", "tests.support.xdist_groups")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every PostgreSQL case carries the `postgres` marker, so `-m "not postgres"` deselects them
    all: tests that ask for `postgres_url` and the `[postgres]`/`[postgresql]` cases of tests
    parametrized over the backends (which reach the server through getfixturevalue)."""
    for item in items:
        callspec = getattr(item, "callspec", None)
        backend = "postgres" in callspec.id if callspec is not None else False
        if backend or "postgres_url" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.postgres)


@pytest.fixture(autouse=True)
def _log_scrubbers_removed() -> Iterator[None]:
    """`serve` run in-process puts its log scrubber (its own credentials and mask key) on the
    root logger's handlers, which are pytest's and outlive the test: taken off again, so a
    later test's log lines are scrubbed only as that test sets up."""
    yield
    for handler in logging.getLogger().handlers:
        for scrubber in [f for f in handler.filters if isinstance(f, ScrubLogs)]:
            handler.removeFilter(scrubber)


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


@pytest.fixture
async def slack_api() -> AsyncIterator[SlackApiStandIn]:
    """The Slack Web API stand-in (tests/fakes/slack_api.py) with the workspace's PEOPLE."""
    async with SlackApiStandIn(users=dict(PEOPLE)) as api:
        yield api


@pytest.fixture(scope="session")
def frr_host() -> None:
    """Root, FRR, socat and iproute2 are here (real FRR labs). Missing: skipped on a developer
    machine, a failure under CI=true (CI installs .ci/debian-packages and runs as root)."""
    try:
        check_host()
    except FrrLabError as err:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"real FRR lab unavailable under CI: {err}")
        pytest.skip(f"real FRR lab unavailable: {err}")
