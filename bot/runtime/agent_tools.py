"""The MCP door's backing (adapters.mcp.AgentDoor): each tool call of a named agent goes to the
agents' desk (bot.agents.desk), counted and logged there; built from the settings and a runtime
(`labbot mcp` over stdio, the HTTP endpoint in `labbot serve`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from adapters.chat import ThreadRef
from adapters.mcp import Json, Progress
from base.errors import ConfigError
from bot import messages
from bot.agents.desk import AgentDesk
from bot.commands.read_budget import ChannelBudget
from bot.commands.reads import ReadCommand
from bot.policy.agent_principals import Agent, Agents
from bot.runtime.wiring import Runtime, agents_from
from bot.settings import Settings
from storage.read_budget_store import ReadBudgetStore
from workflow.library.catalog import load_catalog

__all__ = ["agent_tools", "place_from", "serving_agent"]

PLATFORMS = ("slack", "matrix", "console")
CONSOLE_CHANNEL = "terminal"  # the console adapter's one channel


def place_from(settings: Settings) -> ThreadRef:
    """Where agents' changes open: LABBOT_MCP_CHANNEL as `slack:C…`, `matrix:!room:hs` or
    `console`; a new thread there for each change."""
    place = settings.mcp_channel
    if not place:
        raise ConfigError(messages.AGENT_NO_PLACE)
    platform, _, channel = place.partition(":")
    if platform == "console" and not channel:
        return ThreadRef("console", CONSOLE_CHANNEL, "")
    if platform not in PLATFORMS or not channel:
        raise ConfigError(messages.AGENT_NO_PLACE)
    return ThreadRef(platform, channel, "")


def serving_agent(settings: Settings, agents: Agents) -> Agent:
    """The agent `labbot mcp` serves over stdio: LABBOT_MCP_AGENT, one LABBOT_MCP_AGENTS names."""
    agent = agents.by_name.get(settings.mcp_agent or "")
    if agent is None:
        known = ", ".join(sorted(agents.by_name)) or "none configured"
        raise ConfigError(messages.AGENT_UNKNOWN.format(name=settings.mcp_agent, known=known))
    return agent


@dataclass(frozen=True)
class AgentTools:
    """What each MCP tool does, for the agent named by the transport (stdio: the configured
    one; HTTP: its token's)."""

    desk: AgentDesk
    agents: Agents

    async def lab(self, agent: str) -> Json:
        return await self._call(agent, "lab", {}, lambda _: self.desk.lab())

    async def show(self, agent: str, command: str, devices: list[str]) -> Json:
        asked = {"command": command, "devices": devices}
        return await self._call(agent, "show", asked, lambda a: self.desk.show(a, command, devices))

    async def templates(self, agent: str) -> Json:
        return await self._call(agent, "templates", {}, lambda _: self.desk.template_library())

    async def request_change(
        self, agent: str, text: str, devices: list[str], template: str | None
    ) -> Json:
        asked = {"text": text, "devices": devices, "template": template}
        return await self._call(
            agent,
            "request_change",
            asked,
            lambda a: self.desk.request_change(a, text, devices, template),
        )

    async def change_status(self, agent: str, change_id: str) -> Json:
        return await self._call(
            agent,
            "change_status",
            {"change_id": change_id},
            lambda a: self.desk.change_status(a, change_id),
        )

    async def wait_for_change(
        self, agent: str, change_id: str, seconds: float, progress: Progress
    ) -> Json:
        return await self._call(
            agent,
            "wait_for_change",
            {"change_id": change_id, "seconds": seconds},
            lambda a: self.desk.wait_for_change(a, change_id, seconds, progress),
        )

    async def _call(
        self, name: str, tool: str, arguments: Json, work: Callable[[Agent], Awaitable[Json]]
    ) -> Json:
        agent = self.agents.by_name[name]  # the transport authenticated it
        return await self.desk.call(agent, tool, arguments, lambda: work(agent))

    def agent_of(self, token: str) -> str | None:
        """The agent a bearer token belongs to (by its hash), or None."""
        agent = self.agents.by_token(token)
        return agent.name if agent is not None else None


def agent_tools(settings: Settings, runtime: Runtime, transport: str) -> AgentTools:
    """The tools over `runtime`: its read command (the one chat uses), its workflow and audit;
    `transport` (stdio, http) is said in the audit of each call."""
    service = runtime.service
    commands = service.requests.commands
    handlers = commands.handlers if commands is not None else {}
    reads = handlers.get("show")
    if not isinstance(reads, ReadCommand):
        raise ConfigError(messages.AGENT_NO_LAB)
    place = place_from(settings)
    if place.platform != service.reporter.adapter.platform:
        raise ConfigError(
            messages.AGENT_PLACE_PLATFORM.format(
                place=settings.mcp_channel,
                platform=place.platform,
                serves=service.reporter.adapter.platform,
            )
        )
    desk = AgentDesk(
        service=service,
        changes=runtime.workflow,
        audit=runtime.audit,
        place=place,
        catalog=load_catalog(),
        reads=reads,
        templates=runtime.templates,
        calls=ChannelBudget(ReadBudgetStore(runtime.audit.engine), settings.mcp_calls_per_minute),
        max_open_per_agent=settings.mcp_max_open_per_agent,
        max_wait_seconds=settings.mcp_max_wait_seconds,
        transport=transport,
    )
    return AgentTools(desk, agents_from(settings))
