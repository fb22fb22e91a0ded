"""Which gate a reaction or a thread reply decides, also for gates posted before a restart.

Gate messages carry their button value (`org.labbot.gate`), so the index is only a cache: an
unknown event is fetched and read (decrypted in encrypted rooms); a thread's latest gate is found
among the thread's events.

A typed reply decides the gate its author saw: the one it replies to, directly or by the thread
fallback (clients reply to the thread's latest event they show). So each thread event is noted,
in the order the homeserver delivers them, with the gate that was the thread's latest then; a
reply to an event labbot never noted (before a restart) is placed by reading the thread.

A gate is found only in the room it was posted in: a reply or reaction in one room naming another
room's gate event decides nothing (its author may not be in that room, nor have seen the gate).
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
SEEN_LIMIT = 20_000  # thread events remembered with their gate (older ones: read the thread)


class GateIndex:
    def __init__(self, client: AsyncClient) -> None:
        self._client = client
        self._by_event: dict[str, GateRef] = {}
        self._not_gates: set[tuple[str, str]] = set()  # (room, event) fetched: no gate of ours
        self._by_thread: dict[str, str] = {}  # thread key -> latest gate event id
        self._in_stream: dict[str, str] = {}  # thread key -> latest gate delivered by sync
        self._seen_after: dict[str, str] = {}  # thread event id -> the gate delivered before it

    def remember(self, gate: GateRef) -> None:
        self._by_event[gate.event_id] = gate
        self._by_thread[gate.thread.key] = gate.event_id

    def note(self, thread: ThreadRef, event: Any) -> None:
        """A thread event as sync delivers it (in the homeserver's order): a gate of this bot
        becomes the thread's latest from here on; any other event is seen after that gate."""
        event_id = str(event.get("event_id", ""))
        found = gate_ref(thread.channel, event, self._client.user_id)
        if found is not None:
            self.remember(found)
            self._in_stream[thread.key] = found.event_id
        if event_id and event_id not in self._seen_after and thread.key in self._in_stream:
            self._seen_after[event_id] = self._in_stream[thread.key]
            if len(self._seen_after) > SEEN_LIMIT:
                del self._seen_after[next(iter(self._seen_after))]

    async def seen_with(self, thread: ThreadRef, event_id: str) -> GateRef | None:
        """The gate that was the thread's latest when `event_id` was (None: there was none, as
        for the thread's root, or the event is not in the thread)."""
        if not event_id:
            return None
        if event_id in self._seen_after:
            gate = self._by_event.get(self._seen_after[event_id])
            return gate if gate is not None and gate.thread.channel == thread.channel else None
        return await self._scan_thread(thread, until=event_id)

    async def by_event(self, room_id: str, event_id: str) -> GateRef | None:
        """The gate posted as `event_id` in `room_id` (None: not a gate message of this bot
        there, such as another room's gate)."""
        gate = self._by_event.get(event_id)
        if gate is None and (room_id, event_id) not in self._not_gates:
            response = await self._client.room_get_event(room_id, event_id)
            if isinstance(response, RoomGetEventResponse):
                event = self._readable(room_id, response.event)
                gate = gate_ref(room_id, event.source, self._client.user_id)
            if gate is None:  # remembered per room: another room may hold this event id
                self._not_gates.add((room_id, event_id))
            else:
                self._by_event[event_id] = gate
        return gate if gate is not None and gate.thread.channel == room_id else None

    async def content(self, room_id: str, event_id: str) -> dict[str, Any] | None:
        """The content of this bot's gate message `event_id` in `room_id`, fetched and read
        (decrypted in an encrypted room); None when it is not one."""
        response = await self._client.room_get_event(room_id, event_id)
        if not isinstance(response, RoomGetEventResponse):
            return None
        source = self._readable(room_id, response.event).source
        if gate_ref(room_id, source, self._client.user_id) is None:
            return None
        return dict(source.get("content", {}))

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

    async def _scan_thread(self, thread: ThreadRef, until: str = "") -> GateRef | None:
        """The latest gate in the thread, newest first; with `until`, the latest one at or
        before that event (None when the scan never meets `until`)."""
        events = self._client.room_get_event_relations(
            thread.channel,
            thread.thread,
            RelationshipType.thread,
            direction=MessageDirection.back,
            limit=50,
        )
        seen, reached = 0, not until
        try:
            async for event in events:
                readable = self._readable(thread.channel, event)
                reached = reached or readable.source.get("event_id") == until
                found = gate_ref(thread.channel, readable.source, self._client.user_id)
                seen += 1
                if (found is not None and reached) or seen >= THREAD_SCAN_LIMIT:
                    return found if reached else None
        except AttributeError:
            # nio 0.26 reads `next_batch` of an error response: the thread cannot be read.
            log.warning("cannot read the thread %s to find its gate", thread.key)
        finally:
            await events.aclose()
        return None
