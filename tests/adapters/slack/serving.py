"""A Slack adapter running against the Web API stand-in, as `labbot serve` runs it (HTTP mode or
Socket Mode), for the Slack adapter tests and bench.slack_ack."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from adapters.chat import EventHandler
from adapters.slack.adapter import SlackAdapter, slack_adapter
from adapters.slack.transport import BACKLOG
from tests.fakes.slack_api import APP_TOKEN, BOT_TOKEN, SIGNING_SECRET, SlackApiStandIn, SlackSender


def http_adapter(api: SlackApiStandIn, backlog: int = BACKLOG) -> SlackAdapter:
    return slack_adapter(
        bot_token=BOT_TOKEN,
        api_url=api.base_url,
        signing_secret=SIGNING_SECRET,
        http=True,
        host="127.0.0.1",
        port=0,
        backlog=backlog,
    )


def socket_adapter(api: SlackApiStandIn, backlog: int = BACKLOG) -> SlackAdapter:
    return slack_adapter(
        bot_token=BOT_TOKEN, api_url=api.base_url, app_token=APP_TOKEN, backlog=backlog
    )


@contextlib.asynccontextmanager
async def running(adapter: SlackAdapter, handler: EventHandler) -> AsyncIterator[None]:
    """Run the adapter (as `labbot serve` does) until the block ends, then stop it."""
    task = asyncio.create_task(adapter.run(handler))
    ready = asyncio.create_task(adapter.transport.ready.wait())
    # HTTP mode starts its ack front, a process: seconds on a loaded machine
    done, _ = await asyncio.wait({task, ready}, timeout=60, return_when=asyncio.FIRST_COMPLETED)
    if ready not in done:
        ready.cancel()
        task.cancel()
        raise AssertionError(f"the Slack adapter did not start: {task}")
    try:
        yield
        await adapter.idle()
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


@contextlib.asynccontextmanager
async def serving_http(
    api: SlackApiStandIn, handler: EventHandler, backlog: int = BACKLOG
) -> AsyncIterator[tuple[SlackAdapter, SlackSender]]:
    """The adapter in HTTP mode on a free port, and Slack's side sending it signed requests."""
    adapter = http_adapter(api, backlog)
    async with running(adapter, handler):
        url = adapter.transport.url  # type: ignore[attr-defined]
        async with SlackSender(url) as sender:
            yield adapter, sender
