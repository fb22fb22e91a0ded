"""Slack's side of Socket Mode, as Slack's docs describe it (docs.slack.dev, "Using Socket Mode").

apps.connections.open (the Web API stand-in, with the app-level token) hands out a websocket URL
that is good for one connection; on each connection Slack first says hello, then sends envelopes
(`envelope_id`, `type`, `payload`, `accepts_response_payload`, `retry_attempt`, `retry_reason`),
each to be acked by the app with its `envelope_id` (and, where accepted, a response payload).
Before Slack closes a connection it sends a disconnect message (`refresh_requested`, `warning`,
`link_disabled`): the app opens a new connection, and the old one is closed once it has (or
after a grace period). Envelopes go to the newest open connection.

It serves on the Web API stand-in's own server, or in a process of its own (`elsewhere`), as
Slack is not in the app's interpreter: there it also takes what to send over HTTP (`SEND`: one
envelope, `BURST`: many, so many at a time) and times each ack itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import multiprocessing
import secrets
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

import aiohttp
from aiohttp import web

Json = dict[str, Any]
LINK = "/link/"
OPEN = "/socket-mode/open"  # how a Web API stand-in elsewhere asks for a URL
SEND = "/socket-mode/send"  # {kind, payload, retry_attempt, after} -> {ack, ms, sent_at, acked_at}
BURST = "/socket-mode/burst"  # {kind, payloads, concurrency} -> {ms: [each ack's latency]}
CLOSE_GRACE_SECONDS = 10  # Slack closes a connection it asked to be replaced after a while
DEBUG_INFO = {"host": "applink-standin", "build_number": 1, "approximate_connection_time": 18060}


@dataclass
class SocketModeStandIn:
    host: str = "127.0.0.1"
    port: int = 0  # where the websocket is served (set by whoever serves it)
    acks: list[Json] = field(default_factory=list)
    connections: int = 0  # connections opened so far
    on_change: Callable[[], None] = lambda: None  # an ack arrived
    _tickets: set[str] = field(default_factory=set)  # issued, not used yet
    _open: list[web.WebSocketResponse] = field(default_factory=list)  # oldest first
    _connected: asyncio.Event = field(default_factory=asyncio.Event)
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    _acks_due: dict[str, asyncio.Future[Json]] = field(default_factory=dict)  # by envelope id
    _runner: web.AppRunner | None = None

    def add_routes(self, app: web.Application) -> None:
        app.router.add_get(LINK, self._link)
        app.router.add_post(OPEN, self._open_url)

    async def serve(self) -> SocketModeStandIn:
        """On a server of its own (a Web API stand-in elsewhere reaches it at `url`)."""
        app = web.Application()
        self.add_routes(app)
        app.router.add_post(SEND, self._send_asked)
        app.router.add_post(BURST, self._burst_asked)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        await web.TCPSite(self._runner, self.host, 0).start()
        self.port = int(self._runner.addresses[0][1])
        return self

    async def close(self) -> None:
        for socket in list(self._open):
            await socket.close()
        if self._runner is not None:
            await self._runner.cleanup()

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def new_url(self) -> str:
        """A websocket URL good for one connection (what apps.connections.open answers)."""
        ticket = secrets.token_urlsafe(16)
        self._tickets.add(ticket)
        return f"ws://{self.host}:{self.port}{LINK}?ticket={ticket}"

    async def send(
        self, kind: str, payload: Json, *, retry_attempt: int = 0, within: float = 20
    ) -> Json:
        """Deliver one envelope on the newest connection and wait for the app's ack of it
        (TimeoutError after `within` seconds: Slack would send it again)."""
        await asyncio.wait_for(self._connected.wait(), 30)
        envelope_id = f"env-{next(self._ids)}"
        acked = self._acks_due[envelope_id] = asyncio.get_running_loop().create_future()
        envelope = {
            "envelope_id": envelope_id,
            "type": kind,
            "payload": payload,
            "accepts_response_payload": kind != "events_api",
            "retry_attempt": retry_attempt,
            "retry_reason": "timeout" if retry_attempt else "",
        }
        await self._open[-1].send_json(envelope)
        try:
            return await asyncio.wait_for(acked, within)
        finally:
            self._acks_due.pop(envelope_id, None)

    async def disconnect(self, reason: str = "refresh_requested") -> None:
        """Ask the app to replace its connections, as Slack does before it closes them; close
        them once a new one said hello (or after the grace period)."""
        old = list(self._open)
        opened = self.connections
        for socket in old:
            await socket.send_json(
                {"type": "disconnect", "reason": reason, "debug_info": DEBUG_INFO}
            )
        for _ in range(CLOSE_GRACE_SECONDS * 10):
            if self.connections > opened:
                break
            await asyncio.sleep(0.1)
        for socket in old:
            await socket.close()

    async def timed(self, kind: str, payload: Json, retry_attempt: int = 0) -> Json:
        """`send`: the ack, the time from sending the envelope to its ack (`ms`), and when the
        envelope was sent and acked (`sent_at`, `acked_at`: seconds since the epoch)."""
        sent_at, started = time.time(), time.perf_counter()
        ack = await self.send(kind, payload, retry_attempt=retry_attempt)
        ms = (time.perf_counter() - started) * 1000
        return {"ack": ack, "ms": ms, "sent_at": sent_at, "acked_at": time.time()}

    async def _send_asked(self, request: web.Request) -> web.Response:
        asked = await request.json()
        await asyncio.sleep(asked.get("after", 0))
        timed = await self.timed(asked["kind"], asked["payload"], asked.get("retry_attempt", 0))
        return web.json_response(timed)

    async def _burst_asked(self, request: web.Request) -> web.Response:
        asked = await request.json()
        payloads, at_once, latencies = asked["payloads"], asked["concurrency"], []
        for start in range(0, len(payloads), at_once):
            batch = payloads[start : start + at_once]
            timed = await asyncio.gather(*(self.timed(asked["kind"], p) for p in batch))
            latencies.extend(t["ms"] for t in timed)
        return web.json_response({"ms": latencies})

    async def _open_url(self, request: web.Request) -> web.Response:
        return web.json_response({"url": self.new_url()})

    async def _link(self, request: web.Request) -> web.StreamResponse:
        ticket = request.query.get("ticket", "")
        if ticket not in self._tickets:  # unknown, or used before: open a new URL
            return web.Response(status=401, text="invalid ticket")
        self._tickets.discard(ticket)
        socket = web.WebSocketResponse()
        await socket.prepare(request)
        hello = {"num_connections": len(self._open) + 1, "debug_info": DEBUG_INFO}
        await socket.send_json({"type": "hello", **hello, "connection_info": {"app_id": "A1"}})
        self._open.append(socket)  # envelopes come after the hello
        self.connections += 1
        self._connected.set()
        try:
            async for message in socket:
                if message.type == aiohttp.WSMsgType.TEXT:
                    self._acked(json.loads(message.data))
        finally:
            self._open.remove(socket)
            if not self._open:
                self._connected.clear()
        return socket

    def _acked(self, ack: Json) -> None:
        self.acks.append(ack)
        self.on_change()
        due = self._acks_due.pop(ack.get("envelope_id", ""), None)
        if due is not None and not due.done():
            due.set_result(ack)


@contextlib.asynccontextmanager
async def elsewhere() -> AsyncIterator[str]:
    """Slack's Socket Mode side in a process of its own while the block runs; yield its url."""
    ours, theirs = multiprocessing.get_context("spawn").Pipe()
    process = multiprocessing.get_context("spawn").Process(target=_serve_until_told, args=(theirs,))
    process.start()
    try:
        yield str(await asyncio.to_thread(ours.recv))
    finally:
        ours.send("stop")
        await asyncio.to_thread(process.join, 30)
        if process.is_alive():
            process.kill()


def _serve_until_told(parent: Connection) -> None:
    async def serve() -> None:
        side = await SocketModeStandIn().serve()
        parent.send(side.url)
        await asyncio.to_thread(parent.recv)
        await side.close()

    asyncio.run(serve())
