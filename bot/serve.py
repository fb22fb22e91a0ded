"""`labbot serve`: run every configured chat adapter in one process.

Each platform has a factory module (`bot/serve_slack.py`, `bot/serve_matrix.py`) exposing
`make_adapter(settings, *, http, host, port) -> ChatAdapter`; each adapter gets its own decision
service over the shared database.
"""

from __future__ import annotations

import asyncio
import importlib
import logging

from adapters.chat import ChatAdapter
from bot import messages
from bot.health import wait_for_database
from bot.redact import scrub_logs
from bot.settings import Settings
from bot.wiring import open_runtime, policy_from, scrubber_from
from workflow.errors import ConfigError, LabbotError

NOTHING_CONFIGURED = (
    "no chat platform configured: set SLACK_BOT_TOKEN with SLACK_APP_TOKEN (Socket Mode) or "
    "SLACK_SIGNING_SECRET (--http), or MATRIX_HOMESERVER with MATRIX_USER_ID; "
    "`labbot demo` needs none"
)
FACTORIES = {"slack": "bot.serve_slack", "matrix": "bot.serve_matrix"}
OUR_LOGGERS = ("bot", "adapters", "workflow", "storage")
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
log = logging.getLogger(__name__)


def configured_platforms(settings: Settings) -> list[str]:
    flags = {"slack": settings.slack_configured, "matrix": settings.matrix_configured}
    return [name for name, configured in flags.items() if configured]


async def make_adapters(
    settings: Settings, *, http: bool, host: str, port: int
) -> list[ChatAdapter]:
    platforms = configured_platforms(settings)
    if not platforms:
        raise ConfigError(NOTHING_CONFIGURED)
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


async def run_adapter(settings: Settings, adapter: ChatAdapter) -> None:
    async with open_runtime(settings, adapter) as runtime:
        await adapter.run(runtime.service.handle)


def configure_logging(settings: Settings) -> None:
    """A service logs to stderr: labbot's own news from INFO up, the libraries' from WARNING;
    the credentials it holds never appear in a line."""
    logging.basicConfig(level=logging.WARNING, format=LOG_FORMAT)
    for name in OUR_LOGGERS:
        logging.getLogger(name).setLevel(logging.INFO)
    scrub_logs(scrubber_from(settings))


async def run_serve(settings: Settings, *, http: bool, host: str, port: int) -> None:
    configure_logging(settings)
    if not policy_from(settings).has_rules:
        log.warning(messages.NO_RULES_WARNING)
    await wait_for_database(settings.database_url, within=settings.db_wait_seconds)
    adapters = await make_adapters(settings, http=http, host=host, port=port)
    try:
        async with asyncio.TaskGroup() as group:
            for adapter in adapters:
                group.create_task(run_adapter(settings, adapter))
    except* LabbotError as errors:  # one clear line (the CLI prints it), not an ExceptionGroup
        raise errors.exceptions[0] from None
