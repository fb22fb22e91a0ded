"""Fixtures of the Slack adapter tests: the Slack Web API stand-in (running adapters:
tests.adapters.slack.serving)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.fakes.slack_api import SlackApiStandIn

PEOPLE = {"U1": "alice", "U2": "bob", "U3": "carol"}


@pytest.fixture
async def slack_api() -> AsyncIterator[SlackApiStandIn]:
    async with SlackApiStandIn(users=dict(PEOPLE)) as api:
        yield api
