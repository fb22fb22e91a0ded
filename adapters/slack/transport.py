"""How Slack reaches the app: Socket Mode (a websocket the app opens; no public URL) or HTTP
(bolt's aiohttp app at /slack/events, for replicas behind a load balancer)."""

from __future__ import annotations

import asyncio
from typing import Protocol

from aiohttp import web
from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler
from slack_bolt.async_app import AsyncApp

EVENTS_PATH = "/slack/events"  # bolt's default: events, interactivity and the slash command
HEALTH_PATH = "/healthz"


class Transport(Protocol):
    ready: asyncio.Event

    async def serve(self, app: AsyncApp) -> None:
        """Deliver Slack requests to `app` until cancelled."""
        ...


class HttpTransport:
    """Serve `app` on host:port (port 0 picks a free port; `port` holds the bound one)."""

    def __init__(self, host: str, port: int, path: str = EVENTS_PATH) -> None:
        self.host, self.port, self.path = host, port, path
        self.ready = asyncio.Event()

    async def serve(self, app: AsyncApp) -> None:
        web_app = app.web_app(path=self.path)
        web_app.router.add_get(HEALTH_PATH, _healthy)
        runner = web.AppRunner(web_app, access_log=None)
        await runner.setup()
        try:
            site = web.TCPSite(runner, self.host, self.port)
            await site.start()
            self.port = int(runner.addresses[0][1])
            self.ready.set()
            await asyncio.Event().wait()
        finally:
            await runner.cleanup()

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}{self.path}"


async def _healthy(request: web.Request) -> web.Response:
    return web.Response(text="ok")


class SocketModeTransport:
    """Open Slack's Socket Mode websocket with the app-level token (xapp-…)."""

    def __init__(self, app_token: str) -> None:
        self.app_token = app_token
        self.ready = asyncio.Event()

    async def serve(self, app: AsyncApp) -> None:
        handler = AsyncSocketModeHandler(app, self.app_token)
        try:
            await handler.connect_async()
            self.ready.set()
            await asyncio.Event().wait()
        finally:
            await handler.close_async()
