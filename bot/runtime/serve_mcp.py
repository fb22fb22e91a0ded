"""`labbot serve`'s MCP endpoint for AI agents: streamable HTTP on LABBOT_MCP_HOST:LABBOT_MCP_PORT
(127.0.0.1 by default), a bearer token per agent, beside the chat adapter of LABBOT_MCP_CHANNEL's
platform (agents' changes open there and people decide them there). With LABBOT_LABS it serves
every lab, each agent in the labs its scope gives it (bot.agents.scope)."""

from __future__ import annotations

import logging
from collections.abc import Callable

from adapters.chat import ChatAdapter
from adapters.mcp.http import http_app, serve_http
from base.errors import ConfigError
from bot import messages
from bot.runtime.agent_tools import AgentLabs, agent_tools, place_from
from bot.runtime.wiring import Runtime
from bot.settings import Settings

__all__ = ["check_agents", "serve_agents", "serves_agents"]

log = logging.getLogger(__name__)


def check_agents(settings: Settings, platforms: list[str]) -> None:
    """With LABBOT_MCP_PORT set, agents' changes must open on a platform `serve` runs: else one
    line naming LABBOT_MCP_CHANNEL, before anything starts."""
    if not settings.mcp_port:
        return
    place = place_from(settings)
    if place.platform not in platforms:
        raise ConfigError(
            messages.AGENT_PLACE_PLATFORM.format(
                place=settings.mcp_channel, platform=place.platform, serves=", ".join(platforms)
            )
        )


def serves_agents(settings: Settings, adapter: ChatAdapter) -> bool:
    """Whether `labbot serve` runs the MCP endpoint beside this adapter: LABBOT_MCP_PORT is set
    and agents' changes open on its platform."""
    if not settings.mcp_port:
        return False
    return place_from(settings).platform == adapter.platform


async def serve_agents(
    settings: Settings,
    served: Runtime | AgentLabs,
    ready: Callable[[int], object] = lambda _: None,
) -> None:
    """The MCP endpoint at http://LABBOT_MCP_HOST:LABBOT_MCP_PORT/mcp until cancelled, on the
    settings' one lab or every lab of LABBOT_LABS; `ready` is told the port once it listens."""
    tools = agent_tools(settings, served, "http")
    limit = settings.mcp_sessions_per_agent

    def too_many(agent: str, count: int) -> str:
        return messages.AGENT_TOO_MANY_SESSIONS.format(agent=agent, count=count, limit=limit)

    app = http_app(
        tools,
        tools.agent_of,
        messages.AGENT_UNKNOWN_TOKEN,
        sessions_per_agent=limit,
        too_many_sessions=too_many,
    )

    def listening(port: int) -> None:
        log.info("MCP endpoint for agents at http://%s:%d/mcp", settings.mcp_host, port)
        ready(port)

    try:
        await serve_http(app, settings.mcp_host, settings.mcp_port, listening)
    except OSError as exc:  # the port is taken, the address is not this machine's
        where = f"{settings.mcp_host}:{settings.mcp_port}"
        raise ConfigError(messages.AGENT_NO_LISTEN.format(where=where, why=exc.strerror)) from None
