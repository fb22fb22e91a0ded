"""Fixtures shared by every test package: the real servers the tests run against."""

from __future__ import annotations

import os

import pytest


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
