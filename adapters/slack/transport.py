"""How Slack reaches the app: Socket Mode (a websocket the app opens; no public URL) or HTTP
(bolt's aiohttp app at /slack/events, for replicas behind a load balancer, with /healthz and
/metrics for the load balancer and Prometheus)."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from concurrent.futures import Future
from contextlib import asynccontextmanager
from dataclasses import dataclass
from functools import partial
from typing import Any, Protocol, TypeVar

from aiohttp import web
from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler
from slack_bolt.async_app import AsyncApp

from adapters.slack import inbound
from base.errors import ConfigError

log = logging.getLogger(__name__)

EVENTS_PATH = "/slack/events"  # bolt's default: events, interactivity and the slash command
HEALTH_PATH = "/healthz"
METRICS_PATH = "/metrics"
T = TypeVar("T")


@dataclass(frozen=True)
class OpsEndpoints:
    """What /healthz and /metrics answer (the bot knows; the transport only serves them).

    Both are called on the HTTP server's thread and loop."""

    health: Callable[[], Awaitable[str | None]]  # None when healthy, else why not
    metrics: Callable[[], tuple[bytes, str]]  # the exposition text and its content type


class Transport(Protocol):
    ready: asyncio.Event

    async def serve(self, app: AsyncApp) -> None:
        """Deliver Slack requests to `app` until cancelled."""
        ...


class HttpTransport:
    """Serve `app` on host:port (port 0 picks a free port; `port` holds the bound one).

    The server runs on its own thread and event loop, so verifying and acking a request never
    queues behind the bot's work on its loop; the listeners hand each event over to the bot's
    loop. `bench.slack_ack` measured acks 2-3x faster at p50 this way (docs/benchmarks.md).
    """

    def __init__(
        self,
        host: str,
        port: int,
        path: str = EVENTS_PATH,
        *,
        signing_secret: str,
        ops: OpsEndpoints | None = None,
    ) -> None:
        self.host, self.port, self.path = host, port, path
        self.ops = ops
        self.signing_secret = signing_secret
        self.ready = asyncio.Event()

    async def serve(self, app: AsyncApp) -> None:
        server = partial(self._serve, app)
        async with on_own_loop(server, "slack-http") as port:
            self.port = port
            log.info("Slack HTTP mode: listening on %s", self.url)
            self.ready.set()
            await asyncio.Event().wait()

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
            site = web.TCPSite(runner, self.host, self.port)
            await site.start()
        except OSError as exc:
            where = f"{self.host}:{self.port}"
            bound.set_exception(
                ConfigError(
                    f"--port: cannot listen on {where}: {exc.strerror} (choose another port)"
                )
            )
            await runner.cleanup()
            return
        bound.set_result(int(runner.addresses[0][1]))
        try:
            await asyncio.wrap_future(stop)
        finally:
            await runner.cleanup()

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}{self.path}"


Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
SIGNATURE_MAX_AGE = 300  # seconds; Slack's own rule (bolt applies it too)


def valid_signature(secret: str, raw: bytes, timestamp: str, signature: str) -> bool:
    """Slack's v0 request signature over the raw bytes (whatever they are), five minutes fresh."""
    try:
        age = abs(time.time() - int(timestamp))
    except ValueError:
        return False
    base = b"v0:" + timestamp.encode() + b":" + raw
    expected = "v0=" + hmac.new(secret.encode(), base, hashlib.sha256).hexdigest()
    return age <= SIGNATURE_MAX_AGE and hmac.compare_digest(expected, signature)


def signed_first(path: str, secret: str) -> Any:
    """Slack's requests: the signature is checked on the raw bytes before anything reads them,
    then the body must be one Slack sends; otherwise 401 or 400 and one log line, never a
    traceback (bolt would parse first, and answer a malformed body with a 500)."""

    @web.middleware
    async def door(request: web.Request, handler: Handler) -> web.StreamResponse:
        if request.path != path or request.method != "POST":
            return await handler(request)
        raw = await request.read()  # aiohttp keeps it: bolt reads the same bytes
        headers = request.headers
        stamp = headers.get("X-Slack-Request-Timestamp", "")
        if not valid_signature(secret, raw, stamp, headers.get("X-Slack-Signature", "")):
            log.warning("refused a Slack request from %s: bad or stale signature", request.remote)
            return web.Response(status=401, text="invalid signature")
        try:
            inbound.parse_delivery(raw.decode("utf-8"), request.content_type)
        except ValueError as exc:  # UnicodeDecodeError is one
            log.warning("refused a signed Slack request from %s: %s", request.remote, exc)
            return web.Response(status=400, text="malformed request")
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


class SocketModeTransport:
    """Open Slack's Socket Mode websocket with the app-level token (xapp-…).

    Like the HTTP server, the websocket is read and acked on a thread and loop of its own, so
    an envelope's ack never waits for the bot's work on its loop."""

    def __init__(self, app_token: str) -> None:
        self.app_token = app_token
        self.ready = asyncio.Event()

    async def serve(self, app: AsyncApp) -> None:
        async with on_own_loop(partial(self._connect, app), "slack-socket-mode"):
            self.ready.set()
            await asyncio.Event().wait()

    async def _connect(self, app: AsyncApp, opened: Future[None], stop: Future[None]) -> None:
        handler = AsyncSocketModeHandler(app, self.app_token)
        try:
            await handler.connect_async()  # type: ignore[no-untyped-call]
        except Exception as exc:  # told to `serve`'s caller, on the bot's loop
            opened.set_exception(exc)
            return
        opened.set_result(None)
        try:
            await asyncio.wrap_future(stop)
        finally:
            await handler.close_async()  # type: ignore[no-untyped-call]


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
