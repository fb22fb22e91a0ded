"""Which gate a reaction or a thread reply decides, also for gates posted before a restart.

Gate messages carry their button value (`org.labbot.gate`), so the index is only a cache: an
unknown event is fetched and read (decrypted in encrypted rooms); a thread's latest gate is found
among the thread's events.
"""

from __future__ import annotations

import logging
from typing import Any

from nio import AsyncClient, EncryptionError, MegolmEvent, RoomGetEventResponse
from nio.api import MessageDirection, RelationshipType

from adapters.chat import ThreadRef
from adapters.matrix.inbound import GateRef, gate_ref

log = logging.getLogger(__name__)
THREAD_SCAN_LIMIT = 200  # events looked at, newest first, to find a thread's gate


class GateIndex:
    def __init__(self, client: AsyncClient) -> None:
        self._client = client
        self._by_event: dict[str, GateRef | None] = {}
        self._by_thread: dict[str, str] = {}  # thread key -> latest gate event id

    def remember(self, gate: GateRef) -> None:
        self._by_event[gate.event_id] = gate
        self._by_thread[gate.thread.key] = gate.event_id

    async def by_event(self, room_id: str, event_id: str) -> GateRef | None:
        """The gate posted as `event_id` (None: not a gate message of this bot)."""
        if event_id not in self._by_event:
            response = await self._client.room_get_event(room_id, event_id)
            found = None
            if isinstance(response, RoomGetEventResponse):
                event = self._readable(room_id, response.event)
                found = gate_ref(room_id, event.source, self._client.user_id)
            self._by_event[event_id] = found
        return self._by_event[event_id]

    async def for_thread(self, thread: ThreadRef) -> GateRef | None:
        """The thread's latest gate message (None: the thread never had one)."""
        event_id = self._by_thread.get(thread.key)
        if event_id is not None:
            return self._by_event.get(event_id)
        found = await self._scan_thread(thread)
        if found is not None:
            self.remember(found)
        return found

    def _readable(self, room_id: str, event: Any) -> Any:
        """A fetched event as its room shows it: decrypted when labbot holds its key."""
        if not isinstance(event, MegolmEvent) or self._client.olm is None:
            return event
        event.room_id = room_id
        try:
            return self._client.decrypt_event(event)
        except EncryptionError as exc:
            log.warning("cannot decrypt %s in %s: %s", event.event_id, room_id, exc)
            return event

    async def _scan_thread(self, thread: ThreadRef) -> GateRef | None:
        events = self._client.room_get_event_relations(
            thread.channel,
            thread.thread,
            RelationshipType.thread,
            direction=MessageDirection.back,
            limit=50,
        )
        seen = 0
        try:
            async for event in events:
                readable = self._readable(thread.channel, event)
                found = gate_ref(thread.channel, readable.source, self._client.user_id)
                seen += 1
                if found is not None or seen >= THREAD_SCAN_LIMIT:
                    return found
        except AttributeError:
            # nio 0.26 reads `next_batch` of an error response: the thread cannot be read.
            log.warning("cannot read the thread %s to find its gate", thread.key)
        finally:
            await events.aclose()
        return None
