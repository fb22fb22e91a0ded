"""The sync loop: a first full-state sync whose timeline is backlog, then long polls, with backoff.

After each sync, in this order: invites are joined or declined, the key traffic runs (so a
decision's device is known when it is checked), events whose room key came late are handled,
then the fresh timeline events of served rooms go to the `Receiver`. Redacted events and events
from before the start are never handled.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from aiohttp import ClientError
from nio import AsyncClient, SyncResponse

from adapters.chat import EventHandler
from adapters.matrix import inbound, texts
from adapters.matrix.e2ee import Encryption
from adapters.matrix.receiving import Receiver
from adapters.matrix.rooms import Rooms

log = logging.getLogger(__name__)
# Events whose server time is this much before our start are backlog even when a later sync
# brings them (a room joined after start replays its recent history).
CLOCK_SKEW_MS = 60_000
RETRY_SECONDS = (1, 2, 5, 10, 30)


def first_sync_filter() -> dict[str, Any]:
    """A filter unique to this start. Synapse answers a repeated sync request (same device,
    filter and token) from a cache for minutes: after a quick restart the cached answer's token
    would replay everything since the previous start, old requests included."""
    nonce = f"org.labbot.start.{secrets.token_hex(8)}"
    return {"room": {"timeline": {"limit": 1, "not_types": [nonce]}}}


@dataclass
class SyncLoop:
    client: AsyncClient
    rooms: Rooms
    crypto: Encryption
    receiver: Receiver
    timeout_ms: int
    _started_ms: int = 0

    async def first(self) -> str:
        """Join what is due and skip the backlog; the token to sync from."""
        self._started_ms = int(time.time() * 1000) - CLOCK_SKEW_MS
        response = await self._sync(timeout=0, full_state=True, sync_filter=first_sync_filter())
        await self.rooms.accept_invites(response)
        await self.rooms.join_configured()
        await self.crypto.maintain()
        for room_id, room in self.client.rooms.items():
            if room.encrypted and self.rooms.is_allowed(room_id) and not self.crypto.active:
                log.warning(texts.E2EE_LOG, room_id)
        return str(response.next_batch)

    async def forever(self, handler: EventHandler, token: str) -> None:
        while True:
            response = await self._sync(timeout=self.timeout_ms, since=token)
            await self.rooms.accept_invites(response)
            await self.crypto.maintain()
            for room_id, late in self.crypto.decrypted_since():  # their keys came at last
                await self.receiver.note(room_id, late, handler)
            for room_id, event in self._fresh_events(response):
                await self.receiver.note(room_id, event, handler)
            await self.crypto.welcome_joiners()
            token = response.next_batch

    def _fresh_events(self, response: SyncResponse) -> Iterator[tuple[str, Any]]:
        """The timeline events of served rooms, in order, without backlog or redacted ones."""
        for room_id, info in response.rooms.join.items():
            if not self.rooms.is_allowed(room_id):
                continue
            redacted = inbound.redacted_ids(event.source for event in info.timeline.events)
            for event in info.timeline.events:
                source = event.source
                if source.get("event_id") not in redacted and inbound.is_fresh(
                    source, self._started_ms
                ):
                    yield room_id, event

    async def _sync(self, **options: Any) -> SyncResponse:
        """One sync, retried with backoff while the homeserver fails or cannot be reached."""
        failures = 0
        while True:
            try:
                response = await self.client.sync(**options)
            except (ClientError, TimeoutError) as exc:
                response = exc
            if isinstance(response, SyncResponse):
                return response
            delay = RETRY_SECONDS[min(failures, len(RETRY_SECONDS) - 1)]
            log.warning("Matrix sync failed (%s); retrying in %ss", response, delay)
            await asyncio.sleep(delay)
            failures += 1
