"""How Slack reaches the app: Socket Mode (a websocket the app opens; no public URL) or HTTP
(bolt's aiohttp app at /slack/events, for replicas behind a load balancer, with /healthz and
/metrics for the load balancer and Prometheus)."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from concurrent.futures import Future
from contextlib import asynccontextmanager
from dataclasses import dataclass
from functools import partial
from typing import Any, Protocol, TypeVar

from aiohttp import web
from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler
from slack_bolt.adapter.socket_mode.async_internals import run_async_bolt_app
from slack_bolt.async_app import AsyncApp
from slack_sdk.socket_mode.aiohttp import SocketModeClient
from slack_sdk.socket_mode.request import SocketModeRequest
from slack_sdk.socket_mode.response import SocketModeResponse

from adapters.slack.front import FrontSettings, RunningFront, ack_front
from adapters.slack.signed import Refused, signed_body

log = logging.getLogger(__name__)

EVENTS_PATH = "/slack/events"  # bolt's default: events, interactivity and the slash command
BACKLOG = 1000  # HTTP requests in the bot's hands, and as many acked and waiting for it
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

    async def idle(self) -> None:
        """Wait until every request Slack sent so far was handed to `app`."""
        ...


class HttpTransport:
    """Serve `app` on host:port (port 0 picks a free port; `port` holds the bound one).

    Slack's requests reach an ack front, a process of its own (front.py): it verifies each one,
    acks it at once and forwards it to bolt's server here, on 127.0.0.1 on a thread and event
    loop of its own; the listeners hand each event over to the bot's loop. So an ack waits
    neither for the bot's loop nor for this interpreter (bench.slack_ack, docs/benchmarks.md).
    `backlog`: how many acked requests may wait for this process before the front says busy.
    """

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
        self.host, self.port, self.path = host, port, path
        self.ops = ops
        self.signing_secret = signing_secret
        self.backlog = backlog
        self.ready = asyncio.Event()
        self._front: RunningFront | None = None

    async def idle(self) -> None:
        """Wait until the front handed over every request it acked so far."""
        if self._front is not None:
            await self._front.idle()

    async def serve(self, app: AsyncApp) -> None:
        server = partial(self._serve, app)
        async with on_own_loop(server, "slack-http") as inside:
            front = FrontSettings(
                self.host,
                self.port,
                self.path,
                self.signing_secret,
                inside=f"http://127.0.0.1:{inside}",
                queue_size=self.backlog,
            )
            async with ack_front(front) as self._front:
                self.port = self._front.port
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

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}{self.path}"


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


class SocketModeTransport:
    """Open Slack's Socket Mode websocket with the app-level token (xapp-…).

    The websocket is read on a thread and loop of its own, and each envelope is acked before
    bolt dispatches it (`AckFirst`), so an ack waits neither for the bot's loop nor for bolt."""

    def __init__(self, app_token: str) -> None:
        self.app_token = app_token
        self.ready = asyncio.Event()
        self._handler: AckFirst | None = None

    async def idle(self) -> None:
        """Wait until every envelope acked so far was dispatched to the app."""
        if self._handler is not None:
            await self._handler.idle()

    async def serve(self, app: AsyncApp) -> None:
        async with on_own_loop(partial(self._connect, app), "slack-socket-mode"):
            self.ready.set()
            await asyncio.Event().wait()

    async def _connect(self, app: AsyncApp, opened: Future[None], stop: Future[None]) -> None:
        handler = self._handler = AckFirst(app, self.app_token)
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


class AckFirst(AsyncSocketModeHandler):
    """bolt's handler acks an envelope once its listeners returned; this one acks it as it
    arrives (the listeners' acks carry nothing: they hand the work to the bot), then lets
    bolt dispatch it."""

    def __init__(self, app: AsyncApp, app_token: str) -> None:
        super().__init__(app, app_token)
        self._dispatching: set[Future[None]] = set()  # envelopes acked, not yet dispatched
        self._lock = threading.Lock()  # `idle` is asked from the bot's thread

    async def handle(self, client: SocketModeClient, req: SocketModeRequest) -> None:  # type: ignore[override]
        dispatched: Future[None] = Future()
        with self._lock:
            self._dispatching.add(dispatched)
        try:
            await client.send_socket_mode_response(SocketModeResponse(envelope_id=req.envelope_id))
            await run_async_bolt_app(self.app, req)
        finally:
            dispatched.set_result(None)
            with self._lock:
                self._dispatching.discard(dispatched)

    async def idle(self) -> None:
        """Wait (on any loop) until every envelope acked so far was dispatched."""
        with self._lock:
            pending = [asyncio.wrap_future(f) for f in self._dispatching]
        await asyncio.gather(*pending)


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
