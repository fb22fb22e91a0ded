"""Fixtures of the MCP tests: the Slack Web API stand-in, as the Slack adapter tests have it."""

from __future__ import annotations

from tests.adapters.slack.conftest import slack_api

__all__ = ["slack_api"]
