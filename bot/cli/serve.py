"""`labbot serve`: run every configured chat adapter in one process.

Each platform has a factory module (`bot/runtime/serve_slack.py`,
`bot/runtime/serve_matrix.py`) exposing `make_adapter(settings, *, http, host, port) ->
ChatAdapter`; each adapter gets its own decision service over the shared database. SIGTERM/SIGINT
stop it as bot/runtime/shutdown.py describes.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import os
from collections.abc import AsyncIterator, Collection
from contextlib import asynccontextmanager
from dataclasses import dataclass

from adapters.chat import ChatAdapter, EventHandler
from base.errors import ConfigError, LabbotError
from bot import messages
from bot.check.doctor import before_serving
from bot.policy.approvers import policy_from
from bot.records.audit_anchor import audit_key, secret_mask
from bot.records.storage_key import check_storage_key, storage_keys
from bot.runtime.agent_tools import AgentLabs, agent_labs
from bot.runtime.health import wait_for_database
from bot.runtime.lab_router import open_lab_router
from bot.runtime.serve_mcp import check_agents, serve_agents, serves_agents
from bot.runtime.shutdown import Drain, on_stop_signal, record_cut_short
from bot.runtime.wiring import Runtime, open_runtime, scrubber_from
from bot.settings import Settings
from bot.views.redact import scrub_logs

NOTHING_CONFIGURED = (
    "no chat platform configured: set SLACK_BOT_TOKEN with SLACK_APP_TOKEN (Socket Mode) or "
    "SLACK_SIGNING_SECRET (--http), or MATRIX_HOMESERVER with MATRIX_USER_ID; "
    "`labbot demo` needs none"
)
NO_AUTHORITY = (
    "LABBOT_MATRIX_ROOMS or LABBOT_MATRIX_AUTHORITY_ROOM: the approval rules name power levels "
    "(power>=N), so set the rooms whose power levels count (a room anyone creates gives its "
    "creator power 100)"
)
FACTORIES = {"slack": "bot.runtime.serve_slack", "matrix": "bot.runtime.serve_matrix"}
OUR_LOGGERS = ("bot", "adapters", "workflow", "storage")
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
log = logging.getLogger(__name__)


def configured_platforms(settings: Settings) -> list[str]:
    """The chat platforms the settings configure; none is one line saying what to set, and so is
    Matrix with power-level rules but no room where power levels count."""
    flags = {"slack": settings.slack_configured, "matrix": settings.matrix_configured}
    platforms = [name for name, configured in flags.items() if configured]
    if not platforms:
        raise ConfigError(NOTHING_CONFIGURED)
    if "matrix" in platforms:
        check_authority(settings)
    return platforms


def check_authority(settings: Settings) -> None:
    """Power-level rules need the rooms where power levels count; without them, refuse to start."""
    configured = settings.matrix_rooms or settings.matrix_authority_room
    if policy_from(settings).reads_power and not configured:
        raise ConfigError(NO_AUTHORITY)


async def make_adapters(
    settings: Settings, platforms: list[str], *, http: bool, host: str, port: int
) -> list[ChatAdapter]:
    adapters = []
    for platform in platforms:
        try:
            module = importlib.import_module(FACTORIES[platform])
        except ModuleNotFoundError:
            raise ConfigError(
                f"the {platform} adapter is not part of this build; use `labbot demo` meanwhile"
            ) from None
        adapters.append(await module.make_adapter(settings, http=http, host=host, port=port))
    return adapters


@dataclass(frozen=True)
class Serving:
    """What an adapter's events go to: one lab's runtime, or a router over the labs'."""

    handle: EventHandler
    runtimes: Collection[Runtime]  # every lab's (pods found while serving too)
    agents: Runtime | AgentLabs | None  # what the MCP endpoint serves: the one lab, or every lab


@asynccontextmanager
async def serving(settings: Settings, adapter: ChatAdapter) -> AsyncIterator[Serving]:
    """The settings' one lab, or with LABBOT_LABS every lab behind a router (and the agents'
    door on every lab, each agent in its labs: bot.agents.scope)."""
    if settings.labs is None:
        async with open_runtime(settings, adapter) as runtime:
            yield Serving(runtime.service.handle, [runtime], runtime)
        return
    async with open_lab_router(settings, adapter) as router:
        agents = None
        if serves_agents(settings, adapter):
            agents = await agent_labs(settings, router)
        yield Serving(router.handle, router.runtimes.values(), agents)


async def run_adapter(settings: Settings, adapter: ChatAdapter, stopping: asyncio.Event) -> int:
    """Serve until `stopping` is set, then stop taking requests and let the running ones finish
    within LABBOT_SHUTDOWN_SECONDS. Returns how many pushes had to be recorded as interrupted."""
    async with serving(settings, adapter) as served:
        drain = Drain()
        serving_task = asyncio.create_task(adapter.run(drain.wrap(served.handle)))
        stopped = asyncio.create_task(stopping.wait())
        agents = None
        if served.agents is not None and serves_agents(settings, adapter):
            # the MCP endpoint beside the place's adapter
            agents = asyncio.create_task(serve_agents(settings, served.agents))
        running = {serving_task, stopped} | ({agents} if agents else set())
        await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
        stopped.cancel()
        if agents is not None:
            await _stop_agents(agents)  # an endpoint that could not start: its error
        if serving_task.done():
            serving_task.result()  # the adapter's error, if it ended on one
            return 0
        serving_task.cancel()  # closes the listener: the load balancer sends requests elsewhere
        with contextlib.suppress(asyncio.CancelledError):
            await serving_task
        if await drain.wait(settings.shutdown_seconds):
            return 0
        cut = 0
        for runtime in list(served.runtimes):  # a pod may come or go meanwhile
            cut += await record_cut_short(runtime.pushes, runtime.audit, runtime.locks, adapter)
        return cut


async def _stop_agents(agents: asyncio.Task[None]) -> None:
    """Stop the MCP endpoint; if it ended by itself, its error (a port in use) is raised."""
    if agents.done():
        agents.result()
        return
    agents.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await agents


def configure_logging(settings: Settings) -> None:
    """A service logs to stderr: labbot's own news from INFO up, the libraries' from WARNING;
    the credentials it holds and secret values (a device's output quoted) never appear in a
    line."""
    logging.basicConfig(level=logging.WARNING, format=LOG_FORMAT)
    for name in OUR_LOGGERS:
        logging.getLogger(name).setLevel(logging.INFO)
    scrub_logs(scrubber_from(settings), secret_mask(settings))


async def run_serve(settings: Settings, *, http: bool, host: str, port: int) -> None:
    configure_logging(settings)
    audit_key(settings, create=False)  # replicas on a shared database without one key: stop here
    keys = storage_keys(settings)  # the same for the key sealing device text
    platforms = configured_platforms(settings)
    check_agents(settings, platforms)  # the MCP endpoint's place is one `serve` runs
    stopping = asyncio.Event()
    on_stop_signal(stopping)
    await wait_for_database(settings.database_url, within=settings.db_wait_seconds)
    await check_storage_key(settings, keys)  # a wrong key: stop before sealing anything with it
    await before_serving(settings)  # the inventory: a broken one stops here, before any login
    adapters = await make_adapters(settings, platforms, http=http, host=host, port=port)
    if settings.labs is None and not policy_from(settings).has_rules:  # (each lab: its own)
        log.warning(messages.NO_RULES_WARNING)
    try:
        async with asyncio.TaskGroup() as group:
            runs = [group.create_task(run_adapter(settings, a, stopping)) for a in adapters]
    except* LabbotError as errors:  # one clear line (the CLI prints it), not an ExceptionGroup
        raise errors.exceptions[0] from None
    if any(run.result() for run in runs):
        # Push threads cannot be cancelled and would keep the process alive past its grace
        # period; what they did so far is recorded as interrupted, so leave now.
        logging.shutdown()
        os._exit(0)
    log.info("stopped")
