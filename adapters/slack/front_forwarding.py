"""The ack front's hand-over: deliveries acked by the front wait in a bounded queue and a few
forwarders POST each one to bolt's server in the bot's process; past the bound the person is
told the bot is busy instead of the click vanishing."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import aiohttp

from adapters.slack import texts
from adapters.slack.inbound import FEEDBACK_BLOCK
from adapters.slack.signed import SIGNATURE_MAX_AGE, signed_headers

log = logging.getLogger(__name__)

FORWARDERS = 4  # deliveries handed to the bot's process at once
QUIET_SECONDS = 0.002  # the forwarders wait while deliveries come closer together than this ...
BURST_SECONDS = 0.05  # ... for at most this long: acks first, the bot's work on them after
RETRY_SECONDS = 0.5  # between attempts while the bot's process does not answer
DRAIN_SECONDS = 10  # at most, after the bot's process closed the front's stdin


@dataclass(frozen=True)
class FrontSettings:
    path: str  # bolt's path, on the bot's server and (HTTP mode) on the front's
    signing_secret: str  # HTTP mode: Slack's; Socket Mode: this run's, the front signs with it
    inside: str  # the bot's process's own server: http://127.0.0.1:PORT
    queue_size: int
    host: str = ""  # HTTP mode: where Slack's requests come
    port: int = 0
    app_token: str = ""  # Socket Mode: the app-level token (xapp-…) ...
    api_url: str = ""  # ... and the Web API that opens the connection (apps.connections.open)


@dataclass(frozen=True)
class Delivery:
    raw: bytes
    headers: dict[str, str]
    sent_at: float  # Slack signed it (HTTP) or sent it (Socket Mode): stale after 5 minutes


@dataclass(frozen=True)
class Busy:
    """The ack that tells a full front's sender: `ack` is its body ({}: an empty ack), or None
    when the delivery is not acked at all, so that Slack sends it again."""

    ack: dict[str, Any] | None


class Forwarder:
    """Acked deliveries in, handed to the bot's process by a few forwarders."""

    def __init__(self, settings: FrontSettings, inside: aiohttp.ClientSession) -> None:
        self.settings = settings
        self.inside = inside
        self.queue: asyncio.Queue[Delivery] = asyncio.Queue(settings.queue_size)
        self._busy_notes: set[asyncio.Task[None]] = set()
        # Socket Mode deliveries carry no signature of Slack's: the front signs them
        self._signs = bool(settings.app_token)
        self._last_taken = 0.0  # the loop's time of the latest delivery
        self.stopping = False  # the bot's process closed the front's stdin

    def take(self, body: dict[str, Any], delivery: Delivery) -> Busy | None:
        """Queue an acked delivery; when the queue is full, how to tell the sender instead."""
        self._last_taken = asyncio.get_running_loop().time()
        try:
            self.queue.put_nowait(delivery)
        except asyncio.QueueFull:
            log.warning(
                "the bot is busy (%d deliveries waiting): told the sender", self.queue.qsize()
            )
            return self._busy(body)
        return None

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Forward while the block runs; then hand over what waits (at most DRAIN_SECONDS:
        once the bot's process ended, a restart needs the port)."""
        forwarders = [asyncio.create_task(self._forward()) for _ in range(FORWARDERS)]
        try:
            yield
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.queue.join(), DRAIN_SECONDS)
        finally:
            if left := self.queue.qsize():  # acked to Slack, never decided: said, not silent
                log.error("%d Slack deliveries acked but not handed to the bot (stopping)", left)
            for task in forwarders:
                task.cancel()

    async def handed_over(self) -> None:
        """Wait until every delivery queued so far was taken by the bot's process."""
        await self.queue.join()

    def _busy(self, body: dict[str, Any]) -> Busy:
        """A slash command's ack shows the note, a modal keeps its text and shows it, a click
        gets it through its response_url; an event is not acked, so Slack sends it again."""
        if body.get("command"):
            return Busy({"response_type": "ephemeral", "text": texts.BUSY})
        if body.get("type") == "view_submission":
            return Busy({"response_action": "errors", "errors": {FEEDBACK_BLOCK: texts.BUSY}})
        if isinstance(body.get("response_url"), str):
            note = asyncio.create_task(self._tell(body["response_url"]))
            self._busy_notes.add(note)
            note.add_done_callback(self._busy_notes.discard)
            return Busy({})
        return Busy(None)

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
                await self._after_the_burst()
                await self._hand_over(delivery)
            finally:
                self.queue.task_done()

    async def _after_the_burst(self) -> None:
        """While deliveries keep coming (a burst of clicks), wait up to BURST_SECONDS: handing
        one over costs this process as much as acking one, and sets the bot's process to work
        beside it on the same cores (bench.slack_ack at 50 at a time)."""
        loop = asyncio.get_running_loop()
        for _ in range(round(BURST_SECONDS / QUIET_SECONDS)):
            if loop.time() - self._last_taken >= QUIET_SECONDS:
                return
            await asyncio.sleep(QUIET_SECONDS)

    async def _hand_over(self, delivery: Delivery) -> None:
        """POST to the bot's process until it takes it (a 503: it is busy), while the delivery
        is fresh and the process is there (once it closed the front's stdin, a refused
        connection means it ended)."""
        while time.time() - delivery.sent_at < SIGNATURE_MAX_AGE:
            headers = delivery.headers
            if self._signs:
                headers = headers | signed_headers(self.settings.signing_secret, delivery.raw)
            try:
                async with self.inside.post(
                    self.settings.path, data=delivery.raw, headers=headers
                ) as answer:
                    if answer.status < 500:
                        return
            except aiohttp.ClientConnectorError:
                if self.stopping:
                    break
            except aiohttp.ClientError:
                pass
            await asyncio.sleep(RETRY_SECONDS)
        log.error("a Slack delivery was acked but the bot's process did not take it")
