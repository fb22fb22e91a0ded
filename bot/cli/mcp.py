"""`labbot mcp`: one local AI agent over stdio (the HTTP endpoint is bot/runtime/serve_mcp.py),
on the settings' one lab or, with LABBOT_LABS, on the labs its scope gives it (bot.agents.scope).

Over stdio nothing but MCP may reach stdout: logs and a console place's messages go to stderr.
Over stdio the chat adapter only posts; people's clicks reach `labbot serve` (or `labbot
console`), which shares the database and resumes the change wherever it was opened. A Matrix
place is refused: posting there would take the bot's Matrix device (its keys) from `labbot serve`.
"""

from __future__ import annotations

import logging
import os
import pwd

from rich.console import Console

from adapters.chat import ChatAdapter
from adapters.mcp import mcp_server
from base.errors import ConfigError
from bot import messages
from bot.cli.serve import configure_logging, make_adapters
from bot.labs.lab_option import lab_shown
from bot.policy.agent_principals import Agent
from bot.records.place import database_place
from bot.runtime.agent_tools import agent_labs, agent_tools, place_from, serving_agent
from bot.runtime.lab_router import open_lab_router
from bot.runtime.wiring import agents_from, make_inventory, open_runtime
from bot.settings import Settings

log = logging.getLogger(__name__)


async def run_mcp_stdio(settings: Settings) -> None:
    """Serve the configured agent (LABBOT_MCP_AGENT) over stdin/stdout until the client ends."""
    configure_logging(settings)  # stderr
    agent = serving_agent(settings, agents_from(settings))
    place = place_from(settings)
    if place.platform == "matrix":
        raise ConfigError(messages.AGENT_STDIO_MATRIX.format(place=settings.mcp_channel))
    adapter = await _poster(settings, place.platform)
    if settings.labs is not None:
        log.info(serving_line(settings, agent))
        async with open_lab_router(settings, adapter) as router:
            labs = await agent_labs(settings, router)
            server = mcp_server(agent_tools(settings, labs, "stdio"), lambda: agent.name)
            await server.run_stdio_async()
        return
    inventory = make_inventory(settings)
    log.info(serving_line(settings, agent))  # a client started it anywhere: where its data is
    async with open_runtime(settings, adapter, inventory=inventory) as runtime:
        server = mcp_server(agent_tools(settings, runtime, "stdio"), lambda: agent.name)
        await server.run_stdio_async()


def serving_line(settings: Settings, agent: Agent) -> str:
    """One line on stderr at start: the lab, the database and data folder (a client may start
    `labbot mcp` in any folder), the agent, and where its changes open."""
    place = settings.mcp_channel or ""
    if place == "console":
        place = messages.AGENT_CONSOLE_DECIDERS
    lab = lab_shown(settings)
    if settings.labs is not None:
        lab = messages.AGENT_STDIO_LABS.format(path=settings.labs)
    return messages.AGENT_STDIO_SERVING.format(
        lab=lab,
        db=database_place(settings),
        data_dir=settings.data_dir.resolve(),
        agent=agent.shown,
        place=place,
    )


async def _poster(settings: Settings, platform: str) -> ChatAdapter:
    """The adapter that opens agents' threads in the place (posting only, never run)."""
    if platform == "console":
        from adapters.console.adapter import ConsoleAdapter

        user = pwd.getpwuid(os.getuid()).pw_name
        console = Console(stderr=True, highlight=False)
        return ConsoleAdapter(console, user=user, takes_input=False)
    host = "127.0.0.1"
    http = settings.slack_app_token is None
    (adapter,) = await make_adapters(settings, [platform], http=http, host=host, port=0)
    return adapter
