"""The ack front: a process of its own that takes Slack's deliveries — HTTP requests it checks
(front_http.py), or Socket Mode envelopes on the websocket it holds (front_socket_mode.py) —,
acks each at once and forwards it to the bot's process (front_forwarding.py). The ack never
waits for the bot's interpreter (its GIL) nor its event loop. This module starts the process
and runs it; it imports only what the front needs, never bolt."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import signal
import sys
from collections.abc import AsyncIterator
from typing import Any, Protocol

import aiohttp

from adapters.slack.front_forwarding import Forwarder, FrontSettings
from adapters.slack.front_http import HttpDoor
from adapters.slack.front_socket_mode import SocketModeDoor
from base.errors import ConfigError

START_SECONDS = 60  # a loaded machine takes seconds to start a Python process
ENTRY = "from adapters.slack.front import main; main()"  # only what the front needs
IDLE = b"idle\n"  # the bot's process asks; the front answers once its queue is handed over
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"  # as `labbot serve` logs


class Door(Protocol):
    """How Slack's deliveries come in: each one acked and handed to the forwarder."""

    port: int  # where Slack's requests come (HTTP mode); 0 in Socket Mode

    async def open(self) -> str | None:
        """Start taking deliveries; or why it cannot, as one line naming the setting."""
        ...

    async def close(self) -> None:
        """Take no more deliveries."""
        ...


class RunningFront:
    """The bot's side of a running front: the port it listens on, and whether it is idle."""

    def __init__(self, port: int, process: asyncio.subprocess.Process) -> None:
        self.port = port
        self._process = process
        self._asking = asyncio.Lock()

    async def idle(self) -> None:
        """Wait until every delivery the front acked so far was handed to this process."""
        assert self._process.stdin is not None and self._process.stdout is not None
        async with self._asking:
            self._process.stdin.write(IDLE)
            await self._process.stdout.readline()


@contextlib.asynccontextmanager
async def ack_front(settings: FrontSettings) -> AsyncIterator[RunningFront]:
    """Run the front (a fresh interpreter; its settings go through its stdin, never its command
    line) while the block runs; a front that cannot start is a `ConfigError` naming the setting.
    It stops once its stdin closes, after handing over what it acked."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-c", ENTRY, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        process.stdin.write(json.dumps(dataclasses.asdict(settings)).encode() + b"\n")
        line = await asyncio.wait_for(process.stdout.readline(), START_SECONDS)
        answer = json.loads(line or b'{"error": "the Slack ack front ended (its log says why)"}')
        if "error" in answer:
            raise ConfigError(answer["error"])
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
    async with aiohttp.ClientSession(settings.inside) as inside:
        forwarder = Forwarder(settings, inside)
        door: Door = (
            SocketModeDoor(settings, forwarder)
            if settings.app_token
            else HttpDoor(settings, forwarder)
        )
        problem = await door.open()
        if problem is not None:
            _tell_parent({"error": problem})
            return
        _tell_parent({"port": door.port})
        async with forwarder.running():
            await _answer(stdin, forwarder)
            forwarder.stopping = True
            await door.close()  # no more deliveries; what was acked reaches the bot


async def _answer(parent: asyncio.StreamReader, forwarder: Forwarder) -> None:
    """Answer the bot's process (is everything acked handed over?) until it closes the
    front's stdin."""
    while await parent.readline():  # the one question there is: IDLE
        await forwarder.handed_over()
        _tell_parent(IDLE)


def _tell_parent(answer: dict[str, Any] | bytes) -> None:
    sys.stdout.buffer.write(
        answer if isinstance(answer, bytes) else json.dumps(answer).encode() + b"\n"
    )
    sys.stdout.buffer.flush()
