"""One agent holds at most LABBOT_MCP_SESSIONS_PER_AGENT open MCP sessions over HTTP, so it
cannot lock the other agents out: the official MCP client against `serve_agents` beside the
Slack lab, and a bare HTTP request for the session one too many."""

from __future__ import annotations

import contextlib
from pathlib import Path

import httpx2

from bot.policy.agent_principals import token_hash
from tests.adapters.mcp.agent_stack import (
    AGENT,
    AGENT_SETTINGS,
    PRINCIPAL,
    TOKEN,
    agent_session,
    call,
    mcp_endpoint,
)
from tests.adapters.slack.stack import slack_lab
from tests.fakes.slack_api import SlackApiStandIn

OTHER_TOKEN = "lbt_copilot-test-token"
TWO_AGENTS = {
    **AGENT_SETTINGS,
    "mcp_agents": f"{AGENT}={PRINCIPAL} {token_hash(TOKEN)};copilot=U2 {token_hash(OTHER_TOKEN)}",
}
OPENING = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "one-too-many", "version": "1"},
    },
}


async def open_one_more(url: str, token: str) -> httpx2.Response:
    """An opening request (initialize, no session id) as any MCP client sends it."""
    headers = {
        "Authorization": f"Bearer {token}",
        "Accept": "application/json, text/event-stream",
    }
    async with httpx2.AsyncClient(timeout=60) as http:
        return await http.post(url, json=OPENING, headers=headers)


async def test_an_agent_past_its_sessions_is_refused_and_the_others_still_get_in(
    tmp_path: Path, slack_api: SlackApiStandIn
) -> None:
    capped = {**TWO_AGENTS, "mcp_sessions_per_agent": 2}
    async with slack_lab(tmp_path, slack_api, **capped) as bot, mcp_endpoint(bot) as url:
        async with contextlib.AsyncExitStack() as held:
            first = await held.enter_async_context(agent_session(url))
            await held.enter_async_context(agent_session(url))
            refused = await open_one_more(url, TOKEN)
            async with agent_session(url, OTHER_TOKEN) as other:
                others = await call(other, "templates")
            still = await call(first, "templates")
        async with agent_session(url) as again:  # the two were closed: room again
            later = await call(again, "templates")
    assert refused.status_code == 429
    error = refused.json()["error"]["message"]
    assert error.startswith(f"labbot MCP: {AGENT} has 2 sessions open already (at most 2")
    assert "LABBOT_MCP_SESSIONS_PER_AGENT" in error
    assert others["success"] and still["success"] and later["success"]
