"""HTTP mode's ack front: a process of its own that checks each Slack request (signature and
replay window, then its shape), acks it at once and forwards it to the bot's process through a
bounded queue. The ack never waits for the bot's interpreter (its GIL) nor its event loop;
when the queue is full the person is told the bot is busy instead of the click vanishing."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import signal
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import aiohttp
from aiohttp import web

from adapters.slack import texts
from adapters.slack.inbound import FEEDBACK_BLOCK
from adapters.slack.signed import SIGNATURE_MAX_AGE, Refused, signed_body
from base.errors import ConfigError

log = logging.getLogger(__name__)

FORWARDED = (
    "Content-Type",
    "X-Slack-Request-Timestamp",
    "X-Slack-Signature",
    "X-Slack-Retry-Num",
    "X-Slack-Retry-Reason",
)
FORWARDERS = 4  # requests handed to the bot's process at once
RETRY_SECONDS = 0.5  # between attempts while the bot's process does not answer
DRAIN_SECONDS = 10  # at most, after the bot's process closed the front's stdin
START_SECONDS = 60  # a loaded machine takes seconds to start a Python process
ENTRY = "from adapters.slack.front import main; main()"  # only what the front needs
IDLE = b"idle\n"  # the bot's process asks; the front answers once its queue is handed over
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"  # as `labbot serve` logs


@dataclass(frozen=True)
class FrontSettings:
    host: str
    port: int
    path: str
    signing_secret: str
    inside: str  # the bot's process's own server: http://127.0.0.1:PORT
    queue_size: int


@dataclass(frozen=True)
class Delivery:
    raw: bytes
    headers: dict[str, str]
    signed_at: float  # the request's timestamp: the bot's process refuses it once stale


class RunningFront:
    """The bot's side of a running front: the port it listens on, and whether it is idle."""

    def __init__(self, port: int, process: asyncio.subprocess.Process) -> None:
        self.port = port
        self._process = process
        self._asking = asyncio.Lock()

    async def idle(self) -> None:
        """Wait until every request the front acked so far was handed to this process."""
        assert self._process.stdin is not None and self._process.stdout is not None
        async with self._asking:
            self._process.stdin.write(IDLE)
            await self._process.stdout.readline()


@contextlib.asynccontextmanager
async def ack_front(settings: FrontSettings) -> AsyncIterator[RunningFront]:
    """Run the front (a fresh interpreter that imports only what it needs; its settings go
    through its stdin, never its command line) while the block runs. It stops once its stdin
    closes, after handing over what it acked."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-c", ENTRY, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        process.stdin.write(json.dumps(dataclasses.asdict(settings)).encode() + b"\n")
        line = await asyncio.wait_for(process.stdout.readline(), START_SECONDS)
        answer = json.loads(line or b'{"error": "it ended (its log says why)"}')
        if "error" in answer:
            where = f"{settings.host}:{settings.port}"
            raise ConfigError(
                f"--port: cannot listen on {where}: {answer['error']} (choose another port)"
            )
        yield RunningFront(int(answer["port"]), process)
    finally:
        process.stdin.close()
        try:
            await asyncio.wait_for(process.wait(), START_SECONDS)
        except TimeoutError:
            process.kill()
            await process.wait()


def main() -> None:
    """The front process: its settings as one JSON line on stdin, then serve until stdin ends.
    Its life follows the bot's process: a Ctrl-C or SIGTERM sent to the whole group reaches
    the bot, which closes the front's stdin once it stops."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    logging.basicConfig(level=logging.WARNING, format=LOG_FORMAT)
    asyncio.run(_serve_from_stdin())


async def _serve_from_stdin() -> None:
    stdin = asyncio.StreamReader()
    loop = asyncio.get_running_loop()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stdin), sys.stdin)
    settings = FrontSettings(**json.loads(await stdin.readline()))
    await Front(settings).serve(stdin)


def _tell_parent(answer: dict[str, Any] | bytes) -> None:
    sys.stdout.buffer.write(
        answer if isinstance(answer, bytes) else json.dumps(answer).encode() + b"\n"
    )
    sys.stdout.buffer.flush()


class Front:
    """Slack's requests in, acked; handed to the bot's process by a few forwarders."""

    def __init__(self, settings: FrontSettings) -> None:
        self.settings = settings
        self.queue: asyncio.Queue[Delivery] = asyncio.Queue(settings.queue_size)
        self._busy_notes: set[asyncio.Task[None]] = set()
        self.stopping = False  # the bot's process closed the front's stdin

    async def serve(self, parent: asyncio.StreamReader) -> None:
        web_app = web.Application()
        web_app.router.add_post(self.settings.path, self.slack)
        web_app.router.add_route("*", "/{tail:.*}", self.passed_on)
        runner = web.AppRunner(web_app, access_log=None)
        await runner.setup()
        try:
            await web.TCPSite(runner, self.settings.host, self.settings.port).start()
        except OSError as exc:
            _tell_parent({"error": exc.strerror or str(exc)})
            await runner.cleanup()
            return
        _tell_parent({"port": int(runner.addresses[0][1])})
        async with aiohttp.ClientSession(self.settings.inside) as session:
            self.session = session
            forwarders = [asyncio.create_task(self._forward()) for _ in range(FORWARDERS)]
            await self._answer(parent)
            self.stopping = True
            await runner.cleanup()  # no more requests; what was acked reaches the bot, unless
            with contextlib.suppress(TimeoutError):  # it ended (then a restart needs the port)
                await asyncio.wait_for(self.queue.join(), DRAIN_SECONDS)
            for task in forwarders:
                task.cancel()

    async def slack(self, request: web.Request) -> web.StreamResponse:
        """Slack's POST: refused, answered here (url_verification), or acked and queued."""
        raw = await request.read()
        try:
            body = signed_body(
                self.settings.signing_secret, raw, request.headers, request.content_type
            )
        except Refused as refused:
            log.warning("refused %s from %s: %s", refused.what, request.remote, refused)
            return web.Response(status=refused.status, text=refused.text)
        if body.get("type") == "url_verification":
            return web.json_response({"challenge": body.get("challenge", "")})
        if body.get("ssl_check"):
            return web.Response()
        headers = {name: request.headers[name] for name in FORWARDED if name in request.headers}
        stamp = float(request.headers["X-Slack-Request-Timestamp"])
        try:
            self.queue.put_nowait(Delivery(raw, headers, stamp))
        except asyncio.QueueFull:
            log.warning(
                "the bot is busy (%d requests waiting): told the sender", self.queue.qsize()
            )
            return self._busy(body)
        return web.Response()

    async def passed_on(self, request: web.Request) -> web.StreamResponse:
        """Anything else (/healthz, /metrics, a wrong path) is the bot process's to answer."""
        async with self.session.request(
            request.method, request.path_qs, data=await request.read(), headers=request.headers
        ) as inside:
            return web.Response(
                status=inside.status,
                body=await inside.read(),
                headers={"Content-Type": inside.headers.get("Content-Type", "text/plain")},
            )

    def _busy(self, body: dict[str, Any]) -> web.Response:
        """Full queue: a slash command's ack shows the note, a modal keeps its text and shows it,
        a click gets it through its response_url; an event is refused, so Slack sends it again."""
        if body.get("command"):
            return web.json_response({"response_type": "ephemeral", "text": texts.BUSY})
        if body.get("type") == "view_submission":
            return web.json_response(
                {"response_action": "errors", "errors": {FEEDBACK_BLOCK: texts.BUSY}}
            )
        if isinstance(body.get("response_url"), str):
            note = asyncio.create_task(self._tell(body["response_url"]))
            self._busy_notes.add(note)
            note.add_done_callback(self._busy_notes.discard)
            return web.Response()
        return web.Response(status=503, text="busy")

    async def _tell(self, response_url: str) -> None:
        note = {"response_type": "ephemeral", "replace_original": False, "text": texts.BUSY}
        try:
            async with aiohttp.ClientSession() as session:
                await session.post(response_url, json=note)
        except aiohttp.ClientError as exc:
            log.warning("could not tell a click that the bot is busy: %s", exc)

    async def _forward(self) -> None:
        while True:
            delivery = await self.queue.get()
            try:
                await self._hand_over(delivery)
            finally:
                self.queue.task_done()

    async def _hand_over(self, delivery: Delivery) -> None:
        """POST to the bot's process until it takes it (a 503: it is busy), while the signature
        is fresh and the process is there (once it closed the front's stdin, a refused
        connection means it ended)."""
        while time.time() - delivery.signed_at < SIGNATURE_MAX_AGE:
            try:
                async with self.session.post(
                    self.settings.path, data=delivery.raw, headers=delivery.headers
                ) as answer:
                    if answer.status < 500:
                        return
            except aiohttp.ClientConnectorError:
                if self.stopping:
                    break
            except aiohttp.ClientError:
                pass
            await asyncio.sleep(RETRY_SECONDS)
        log.error("a Slack request was acked but the bot's process did not take it")

    async def _answer(self, parent: asyncio.StreamReader) -> None:
        """Answer the bot's process (is everything acked handed over?) until it closes the
        front's stdin."""
        while await parent.readline():  # the one question there is: IDLE
            await self.queue.join()
            _tell_parent(IDLE)
