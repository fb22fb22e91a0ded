"""An AI agent on labbot's MCP endpoint: the official client (`mcp.ClientSession` over
streamable HTTP, a bearer token) against `serve_agents` beside a Slack lab (tests.adapters.slack
.stack: the simulated lab, the real runtime, the Slack stand-in)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult, TextContent

from bot.policy.agent_principals import token_hash
from bot.runtime.agent_tools import AgentLabs
from bot.runtime.serve_mcp import serve_agents
from bot.runtime.wiring import Runtime
from bot.settings import Settings
from labsim import Lab
from labsim.cli import CliSession
from tests.adapters.slack.payloads import click
from tests.adapters.slack.stack import SlackLab
from tests.fakes.slack_api import Posted

AGENT = "claude-code"
TOKEN = "lbt_claude-code-test-token"  # its hash only is in the settings
PRINCIPAL = "U1"  # alice asks through the agent
AGENT_SETTINGS = {
    "mcp_agents": f"{AGENT}={PRINCIPAL} {token_hash(TOKEN)}",
    "mcp_channel": "slack:C1",
}
COMMUNITY = "Agent-Comm-RO"  # planted on R1: never given to the agent
TOOLS = {"lab", "show", "templates", "request_change", "change_status", "wait_for_change"}


def plant_secrets(lab: Lab) -> None:
    """R1 gets an SNMP community and an enable secret at its console."""
    console = CliSession(lab.device("R1"), privileged=True, secret="")
    lines = [f"snmp-server community {COMMUNITY} RO", "enable secret 5 $1$Ios$AgentSecret1"]
    for line in ["configure terminal", *lines, "end"]:
        console.feed_line(line)


@contextlib.asynccontextmanager
async def mcp_endpoint(bot: SlackLab) -> AsyncIterator[str]:
    """`labbot serve`'s MCP endpoint beside the Slack lab's bot; its URL."""
    async with endpoint_on(bot.settings, bot.runtime) as url:
        yield url


@contextlib.asynccontextmanager
async def endpoint_on(settings: Settings, served: Runtime | AgentLabs) -> AsyncIterator[str]:
    """`labbot serve`'s MCP endpoint for `served` (one lab's runtime, or every lab of
    LABBOT_LABS) on a free port of 127.0.0.1; its URL."""
    listening: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    settings = settings.model_copy(update={"mcp_port": 0})
    task = asyncio.create_task(serve_agents(settings, served, listening.set_result))
    try:
        port = await asyncio.wait_for(asyncio.shield(listening), 20)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


@contextlib.asynccontextmanager
async def agent_session(url: str, token: str = TOKEN) -> AsyncIterator[ClientSession]:
    """The official MCP client, initialized, sending `token` as its bearer token."""
    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=120) as http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


def answer_of(result: CallToolResult) -> dict[str, Any]:
    """A tool's standard response: its structured content, which its text repeats."""
    (text,) = result.content
    assert isinstance(text, TextContent)
    assert result.structured_content == json.loads(text.text)
    return result.structured_content


async def call(session: ClientSession, tool: str, **arguments: Any) -> dict[str, Any]:
    return answer_of(await session.call_tool(tool, arguments))


async def opened_thread(bot: SlackLab) -> Posted:
    """The thread the agent's change opened in #C1 (its root names the agent)."""
    return await bot.api.wait_for(
        lambda: next(
            (m for m in bot.api.messages.values() if m.thread_ts is None and AGENT in m.text),
            None,
        )
    )


async def approve_both_gates(
    bot: SlackLab,
    thread: str,
    told: Callable[[], list[str]],
    people: tuple[tuple[str, str], ...] = (("U2", "bob"),),
) -> None:
    """`people` (id, name) approve the template, then execute the preview, each gate once the
    waiting agent was told of it (`told`: the notifications it had so far)."""

    def heard(gate: str) -> bool:
        return any(message.endswith(f"the {gate} gate") for message in told())

    template = await bot.gate(thread, "Approve")
    await bot.api.wait_for(lambda: heard("template"))
    for user, name in people:
        await bot.slack.interaction(click(template, "Approve", user=user, name=name))
        await bot.adapter.idle()
    preview = await bot.gate(thread, "Execute")
    await bot.api.wait_for(lambda: heard("params"))
    for user, name in people:
        await bot.slack.interaction(click(preview, "Execute", user=user, name=name))
        await bot.adapter.idle()
    await bot.said(thread, "pushed")
