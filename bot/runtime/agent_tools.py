"""The MCP door's backing (adapters.mcp.AgentDoor): each tool call of a named agent goes to the
agents' desk of its lab (bot.agents.desk), counted and logged there; built from the settings and
a runtime (`labbot mcp` over stdio, the HTTP endpoint in `labbot serve`), or with LABBOT_LABS
from every lab's runtime, each call working in the lab its `lab` argument or the agent's scope
says (bot.agents.scope)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from adapters.chat import PlaceIds, ThreadRef
from adapters.mcp import Json, Progress
from base.errors import ConfigError
from bot import messages
from bot.agents.desk import AgentDesk
from bot.agents.scope import chosen_lab
from bot.commands.read_budget import ChannelBudget
from bot.commands.reads import ReadCommand
from bot.labs.spec import Lab
from bot.policy.agent_principals import Agent, Agents
from bot.runtime.lab_router import LabRouter
from bot.runtime.wiring import Runtime, agents_from
from bot.settings import Settings
from storage.read_budget_store import ReadBudgetStore
from workflow.library.catalog import Catalog, load_catalog

__all__ = ["AgentLabs", "agent_labs", "agent_tools", "place_from", "serving_agent"]

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
class AgentLabs:
    """What the MCP endpoint serves with LABBOT_LABS: every lab and its runtime, read at each
    call (`current`: pods found since are served too), and the lab of LABBOT_MCP_CHANNEL
    (`home`, None when its place is no lab's), which takes every agent unless it names its own."""

    current: Callable[[], tuple[Mapping[str, Lab], Mapping[str, Runtime]]]
    home: str | None = None


async def agent_labs(settings: Settings, router: LabRouter) -> AgentLabs:
    """What the agents' door serves with LABBOT_LABS: the router's labs (read at each call),
    the lab of LABBOT_MCP_CHANNEL its home. With no home and no lab naming agents, no agent
    could work anywhere: one line at start."""
    home = await router.lab_of(place_from(settings))
    if home is None and not any(lab.agents for lab in router.labs.values()):
        raise ConfigError(messages.LABS_AGENTS_PLACE.format(place=settings.mcp_channel))

    def current() -> tuple[Mapping[str, Lab], Mapping[str, Runtime]]:
        """The labs served now: a gone pod takes no agent's call (nor a person's request)."""
        serving = {name: r for name, r in router.runtimes.items() if name not in router.gone}
        return router.labs, serving

    return AgentLabs(current, home)


class Desks(Protocol):
    """The desk a call of an agent works at, or why none (in one line)."""

    @property
    def front(self) -> AgentDesk:
        """The desk that counts and records a call refused before any lab is chosen."""
        ...

    async def desk(self, agent: str, lab: str | None) -> tuple[AgentDesk | None, str]: ...


@dataclass(frozen=True)
class OneLab:
    """The settings' one lab: its desk; a `lab` argument is refused (no labs file)."""

    front: AgentDesk

    async def desk(self, agent: str, lab: str | None) -> tuple[AgentDesk | None, str]:
        if lab is not None:
            return None, messages.AGENT_LAB_WITHOUT_LABS
        return self.front, ""


@dataclass
class ManyLabs:
    """Every lab of LABBOT_LABS, a desk each (made at its first call); an agent works in the
    labs its scope gives it (bot.agents.scope)."""

    labs: AgentLabs
    make: Callable[[Lab, Runtime], Awaitable[AgentDesk]]
    front: AgentDesk
    _desks: dict[str, tuple[Runtime, AgentDesk]] = field(default_factory=dict)

    async def desk(self, agent: str, lab: str | None) -> tuple[AgentDesk | None, str]:
        labs, runtimes = self.labs.current()
        served = [each for each in labs.values() if each.name in runtimes]
        name, refusal = chosen_lab(agent, lab, served, self.labs.home)
        if name is None:
            return None, refusal or ""
        runtime = runtimes[name]
        made = self._desks.get(name)
        if made is not None and made[0] is runtime:
            return made[1], ""
        desk = await self.make(labs[name], runtime)
        self._desks[name] = (runtime, desk)
        return desk, ""


@dataclass(frozen=True)
class AgentTools:
    """What each MCP tool does, for the agent named by the transport (stdio: the configured
    one; HTTP: its token's), in the lab its `lab` argument names (or its one lab)."""

    desks: Desks
    agents: Agents

    async def lab(self, agent: str, lab: str | None = None) -> Json:
        return await self._call(agent, "lab", {}, lab, lambda desk, _: desk.lab())

    async def show(
        self, agent: str, command: str, devices: list[str], lab: str | None = None
    ) -> Json:
        asked = {"command": command, "devices": devices}
        return await self._call(
            agent, "show", asked, lab, lambda desk, a: desk.show(a, command, devices)
        )

    async def templates(self, agent: str, lab: str | None = None) -> Json:
        return await self._call(
            agent, "templates", {}, lab, lambda desk, _: desk.template_library()
        )

    async def request_change(
        self,
        agent: str,
        text: str,
        devices: list[str],
        template: str | None,
        lab: str | None = None,
    ) -> Json:
        asked = {"text": text, "devices": devices, "template": template}
        return await self._call(
            agent,
            "request_change",
            asked,
            lab,
            lambda desk, a: desk.request_change(a, text, devices, template),
        )

    async def change_status(self, agent: str, change_id: str, lab: str | None = None) -> Json:
        return await self._call(
            agent,
            "change_status",
            {"change_id": change_id},
            lab,
            lambda desk, a: desk.change_status(a, change_id),
        )

    async def wait_for_change(
        self,
        agent: str,
        change_id: str,
        seconds: float,
        progress: Progress,
        lab: str | None = None,
    ) -> Json:
        return await self._call(
            agent,
            "wait_for_change",
            {"change_id": change_id, "seconds": seconds},
            lab,
            lambda desk, a: desk.wait_for_change(a, change_id, seconds, progress),
        )

    async def _call(
        self,
        name: str,
        tool: str,
        arguments: Json,
        lab: str | None,
        work: Callable[[AgentDesk, Agent], Awaitable[Json]],
    ) -> Json:
        """The call at its lab's desk; refused at the front desk (counted and recorded all the
        same) when the agent does not work in the lab it names, or must name one."""
        agent = self.agents.by_name[name]  # the transport authenticated it
        if lab is not None:
            arguments = {**arguments, "lab": lab}
        desk, refusal = await self.desks.desk(agent.name, lab)
        if desk is None:
            return await self.desks.front.refuse(agent, tool, arguments, refusal)
        at = desk
        answer = await at.call(agent, tool, arguments, lambda: work(at, agent))
        if at.lab_name:
            answer.setdefault("metadata", {})["lab"] = at.lab_name
        return answer

    def agent_of(self, token: str) -> str | None:
        """The agent a bearer token belongs to (by its hash), or None."""
        agent = self.agents.by_token(token)
        return agent.name if agent is not None else None


def agent_tools(settings: Settings, served: Runtime | AgentLabs, transport: str) -> AgentTools:
    """The tools over one runtime (the settings' one lab), or over every lab of LABBOT_LABS
    (`AgentLabs`): each lab's read command (the one chat uses), workflow and audit; `transport`
    (stdio, http) is said in the audit of each call."""
    place = place_from(settings)
    catalog = load_catalog()
    if isinstance(served, Runtime):
        _check_platform(settings, place, served)
        desk = _desk(settings, served, place, catalog, transport)
        return AgentTools(OneLab(desk), agents_from(settings))
    _, runtimes = served.current()
    if not runtimes:
        raise ConfigError(messages.LABS_AGENTS_PLACE.format(place=settings.mcp_channel))
    home = served.home or ""
    first = runtimes[home] if home in runtimes else next(iter(runtimes.values()))
    _check_platform(settings, place, first)

    async def make(lab: Lab, runtime: Runtime) -> AgentDesk:
        where = place if lab.name == served.home else _lab_place(lab, place.platform)
        where = await _by_id(where, runtime)
        return _desk(settings, runtime, where, catalog, transport, lab.name)

    front = _desk(settings, first, place, catalog, transport)
    return AgentTools(ManyLabs(served, make, front), agents_from(settings))


def _lab_place(lab: Lab, platform: str) -> ThreadRef:
    """Where lab `lab`'s agents' changes open: its first place on LABBOT_MCP_CHANNEL's platform
    (channel "": it has none there); on the console, its one channel (`labbot console --lab`
    decides them)."""
    if platform == "console":
        return ThreadRef("console", CONSOLE_CHANNEL, "")
    places = {"slack": lab.slack, "matrix": lab.matrix}.get(platform, ())
    return ThreadRef(platform, places[0] if places else "", "")


async def _by_id(place: ThreadRef, runtime: Runtime) -> ThreadRef:
    """`place` with a channel written by name (`#pod-3`) as its id, when the platform resolves
    it now (else as written: the desk resolves it when a change opens, and keeps its id)."""
    adapter = runtime.service.reporter.adapter
    if not place.channel or not isinstance(adapter, PlaceIds):
        return place
    channel = await adapter.place_id(place.channel)
    return ThreadRef(place.platform, channel or place.channel, "")


def _check_platform(settings: Settings, place: ThreadRef, runtime: Runtime) -> None:
    served = runtime.service.reporter.adapter.platform
    if place.platform != served:
        raise ConfigError(
            messages.AGENT_PLACE_PLATFORM.format(
                place=settings.mcp_channel, platform=place.platform, serves=served
            )
        )


def _desk(
    settings: Settings,
    runtime: Runtime,
    place: ThreadRef,
    catalog: Catalog,
    transport: str,
    lab: str = "",
) -> AgentDesk:
    service = runtime.service
    commands = service.requests.commands
    handlers = commands.handlers if commands is not None else {}
    reads = handlers.get("show")
    if not isinstance(reads, ReadCommand):
        raise ConfigError(messages.AGENT_NO_LAB)
    return AgentDesk(
        service=service,
        changes=runtime.workflow,
        audit=runtime.audit,
        place=place,
        catalog=catalog,
        reads=reads,
        templates=runtime.templates,
        calls=ChannelBudget(ReadBudgetStore(runtime.audit.engine), settings.mcp_calls_per_minute),
        max_open_per_agent=settings.mcp_max_open_per_agent,
        max_wait_seconds=settings.mcp_max_wait_seconds,
        transport=transport,
        lab_name=lab,
    )
