"""How Slack reaches the app: Socket Mode (a websocket the app opens; no public URL) or HTTP
(bolt's aiohttp app at /slack/events, for replicas behind a load balancer, with /healthz and
/metrics for the load balancer and Prometheus); either way through the ack front."""

from __future__ import annotations

import asyncio
import logging
import secrets
import threading
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from concurrent.futures import Future
from contextlib import asynccontextmanager
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar

from aiohttp import web
from slack_bolt.async_app import AsyncApp

from adapters.slack.front import RunningFront, ack_front
from adapters.slack.front_forwarding import FrontSettings
from adapters.slack.signed import Refused, signed_body

__all__ = ["OpsEndpoints"]

log = logging.getLogger(__name__)

EVENTS_PATH = "/slack/events"  # bolt's default: events, interactivity and the slash command
BACKLOG = 1000  # Slack deliveries in the bot's hands, and as many acked and waiting for it
HEALTH_PATH = "/healthz"
METRICS_PATH = "/metrics"
T = TypeVar("T")


@dataclass(frozen=True)
class OpsEndpoints:
    """What /healthz and /metrics answer (the bot knows; the transport only serves them).

    Both are called on the HTTP server's thread and loop."""

    health: Callable[[], Awaitable[str | None]]  # None when healthy, else why not
    metrics: Callable[[], tuple[bytes, str]]  # the exposition text and its content type


class FrontedTransport(ABC):
    """bolt's server in this process, on 127.0.0.1 on a thread and event loop of its own, behind
    an ack front (front.py), a process of its own that takes Slack's deliveries, acks each at
    once and forwards it here; the listeners hand each event over to the bot's loop. So an ack
    waits neither for the bot's loop nor for this interpreter (bench.slack_ack,
    docs/benchmarks.md). `backlog`: how many acked deliveries may wait for this process before
    the front says busy. Subclasses say how Slack reaches the front."""

    thread_name = "slack"

    def __init__(
        self, signing_secret: str, *, ops: OpsEndpoints | None, backlog: int, path: str
    ) -> None:
        self.signing_secret = signing_secret
        self.ops = ops
        self.backlog = backlog
        self.path = path
        self.ready = asyncio.Event()
        self._front: RunningFront | None = None

    async def idle(self) -> None:
        """Wait until the front handed over every delivery it acked so far."""
        if self._front is not None:
            await self._front.idle()

    async def serve(self, app: AsyncApp) -> None:
        server = partial(self._serve, app)
        async with on_own_loop(server, self.thread_name) as inside:
            settings = self.front_settings(f"http://127.0.0.1:{inside}")
            async with ack_front(settings) as self._front:
                self.started(self._front)
                self.ready.set()
                await asyncio.Event().wait()

    @abstractmethod
    def front_settings(self, inside: str) -> FrontSettings:
        """What the front is told: how Slack reaches it, and `inside`, this process's server."""

    @abstractmethod
    def started(self, front: RunningFront) -> None:
        """The front takes Slack's deliveries (say so in the log)."""

    async def _serve(self, app: AsyncApp, bound: Future[int], stop: Future[None]) -> None:
        web_app = app.web_app(path=self.path)
        web_app.middlewares.append(signed_first(self.path, self.signing_secret))
        if self.ops is None:
            web_app.router.add_get(HEALTH_PATH, _healthy)
        else:
            _add_ops_routes(web_app, self.ops)
        runner = web.AppRunner(web_app, access_log=None)
        await runner.setup()
        try:
            await web.TCPSite(runner, "127.0.0.1", 0).start()
        except OSError as exc:
            bound.set_exception(exc)
            await runner.cleanup()
            return
        bound.set_result(int(runner.addresses[0][1]))
        try:
            await asyncio.wrap_future(stop)
        finally:
            await runner.cleanup()


class HttpTransport(FrontedTransport):
    """Slack's requests reach the front on host:port (port 0 picks a free port; `port` holds
    the bound one), signed with the app's signing secret, which both processes check."""

    thread_name = "slack-http"

    def __init__(
        self,
        host: str,
        port: int,
        path: str = EVENTS_PATH,
        *,
        signing_secret: str,
        ops: OpsEndpoints | None = None,
        backlog: int = BACKLOG,
    ) -> None:
        super().__init__(signing_secret, ops=ops, backlog=backlog, path=path)
        self.host, self.port = host, port

    def front_settings(self, inside: str) -> FrontSettings:
        return FrontSettings(
            self.path, self.signing_secret, inside, self.backlog, host=self.host, port=self.port
        )

    def started(self, front: RunningFront) -> None:
        self.port = front.port
        log.info("Slack HTTP mode: listening on %s", self.url)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}{self.path}"


class SocketModeTransport(FrontedTransport):
    """Slack's Socket Mode websocket, opened and held by the front with the app-level token
    (xapp-…) through the Web API at `api_url`; the front signs what it forwards here with a
    secret of this run (anyone on the host may reach bolt's server on 127.0.0.1)."""

    thread_name = "slack-socket-mode"

    def __init__(self, app_token: str, api_url: str, *, backlog: int = BACKLOG) -> None:
        super().__init__(secrets.token_hex(32), ops=None, backlog=backlog, path=EVENTS_PATH)
        self.app_token, self.api_url = app_token, api_url

    def front_settings(self, inside: str) -> FrontSettings:
        return FrontSettings(
            self.path,
            self.signing_secret,
            inside,
            self.backlog,
            app_token=self.app_token,
            api_url=self.api_url,
        )

    def started(self, front: RunningFront) -> None:
        log.info("Slack Socket Mode: connected")


Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def signed_first(path: str, secret: str) -> Any:
    """Slack's requests: the signature is checked on the raw bytes before anything reads them,
    then the body must be one Slack sends; otherwise 401 or 400 and one log line, never a
    traceback (bolt would parse first, and answer a malformed body with a 500). The ack front
    checked them already; the bot's server checks again, as anyone on the host may reach it."""

    @web.middleware
    async def door(request: web.Request, handler: Handler) -> web.StreamResponse:
        if request.path != path or request.method != "POST":
            return await handler(request)
        raw = await request.read()  # aiohttp keeps it: bolt reads the same bytes
        try:
            signed_body(secret, raw, request.headers, request.content_type)
        except Refused as refused:
            log.warning("refused %s from %s: %s", refused.what, request.remote, refused)
            return web.Response(status=refused.status, text=refused.text)
        return await handler(request)

    return door


async def _healthy(request: web.Request) -> web.Response:
    return web.Response(text="ok")


def _add_ops_routes(web_app: web.Application, ops: OpsEndpoints) -> None:
    async def health(request: web.Request) -> web.Response:
        problem = await ops.health()
        return web.Response(status=503 if problem else 200, text=problem or "ok")

    async def metrics(request: web.Request) -> web.Response:
        body, content_type = ops.metrics()
        return web.Response(body=body, headers={"Content-Type": content_type})

    web_app.router.add_get(HEALTH_PATH, health)
    web_app.router.add_get(METRICS_PATH, metrics)


# (started with its answer, told to stop) -> runs until told to stop
Server = Callable[[Future[T], Future[None]], Coroutine[Any, Any, None]]


@asynccontextmanager
async def on_own_loop(server: Server[T], name: str) -> AsyncIterator[T]:
    """Run `server` on a thread and event loop of its own while the block runs; yield what it
    answered once started, then tell it to stop and wait until it has."""
    started: Future[T] = Future()
    stop: Future[None] = Future()
    thread = threading.Thread(target=asyncio.run, args=(server(started, stop),), name=name)
    thread.start()
    try:
        yield await asyncio.wrap_future(started)
    finally:
        stop.set_result(None)
        await asyncio.to_thread(thread.join)
