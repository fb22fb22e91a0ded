"""People in the tests: nio `AsyncClient`s that talk to the real Synapse and record what they see.

Each user syncs in the background and keeps every timeline event of every room; `wait_for`
polls that record for an event matching a predicate.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from nio import AsyncClient, RoomCreateResponse, RoomSendResponse, SyncResponse

from adapters.chat import EventHandler
from adapters.matrix.adapter import MatrixAdapter
from tests.fakes.synapse import MatrixAccount

Event = dict[str, Any]
WAIT_SECONDS = 20.0


class ChatUser:
    def __init__(self, homeserver: str, account: MatrixAccount) -> None:
        self.user_id = account.user_id
        self.client = AsyncClient(homeserver, account.user_id)
        self.client.restore_login(account.user_id, account.device_id, account.access_token)
        self.events: list[tuple[str, Event]] = []  # (room id, event source), in arrival order
        self._task: asyncio.Task[None] | None = None
        self._changed = asyncio.Event()  # set whenever events arrive

    async def start(self) -> None:
        first = await self.client.sync(timeout=0, full_state=True)
        assert isinstance(first, SyncResponse), first
        self._task = asyncio.create_task(self._sync(first.next_batch))

    async def _sync(self, token: str) -> None:
        while True:
            response = await self.client.sync(timeout=500, since=token)
            if not isinstance(response, SyncResponse):
                await asyncio.sleep(0.2)
                continue
            for room_id, info in response.rooms.join.items():
                self.events.extend((room_id, event.source) for event in info.timeline.events)
            self._changed.set()
            token = response.next_batch

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        await self.client.close()

    # --- acting -------------------------------------------------------------------------------

    async def create_room(self, invite: list[str], *, encrypted: bool = False) -> str:
        state = []
        if encrypted:
            state.append(
                {
                    "type": "m.room.encryption",
                    "state_key": "",
                    "content": {"algorithm": "m.megolm.v1.aes-sha2"},
                }
            )
        response = await self.client.room_create(invite=invite, initial_state=state)
        assert isinstance(response, RoomCreateResponse), response
        return str(response.room_id)

    async def join(self, room_id: str) -> None:
        await self.client.join(room_id)

    async def send(self, room_id: str, event_type: str, content: dict[str, Any]) -> str:
        response = await self.client.room_send(room_id, event_type, content)
        assert isinstance(response, RoomSendResponse), response
        return str(response.event_id)

    async def say(self, room_id: str, body: str, *, thread: str = "") -> str:
        content: dict[str, Any] = {"msgtype": "m.text", "body": body}
        if thread:
            content["m.relates_to"] = {
                "rel_type": "m.thread",
                "event_id": thread,
                "is_falling_back": True,
                "m.in_reply_to": {"event_id": thread},
            }
        return await self.send(room_id, "m.room.message", content)

    async def react(self, room_id: str, event_id: str, key: str) -> str:
        relation = {"rel_type": "m.annotation", "event_id": event_id, "key": key}
        return await self.send(room_id, "m.reaction", {"m.relates_to": relation})

    # --- watching -----------------------------------------------------------------------------

    async def wait_for(
        self, predicate: Callable[[str, Event], bool], within: float = WAIT_SECONDS
    ) -> Event:
        deadline = time.monotonic() + within
        while True:
            self._changed.clear()
            for room_id, event in self.events:
                if predicate(room_id, event):
                    return event
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"{self.user_id} saw no matching event in {within}s")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), remaining)

    def in_thread(self, room_id: str, root: str) -> list[Event]:
        """Messages in the thread of `root`, oldest first."""
        return [
            event
            for room, event in self.events
            if room == room_id
            and event.get("type") == "m.room.message"
            and (event["content"].get("m.relates_to") or {}).get("event_id") == root
            and (event["content"].get("m.relates_to") or {}).get("rel_type") == "m.thread"
        ]

    def membership(self, room_id: str, user_id: str) -> str:
        room = self.client.rooms.get(room_id)
        if room is None:
            return ""
        if user_id in room.users:
            return "join"
        return "invite" if user_id in room.invited_users else "leave"


def thread_message(room_id: str, root: str, sender: str) -> Callable[[str, Event], bool]:
    def matches(room: str, event: Event) -> bool:
        relation = event.get("content", {}).get("m.relates_to") or {}
        return (
            room == room_id
            and event.get("sender") == sender
            and event.get("type") == "m.room.message"
            and relation.get("rel_type") == "m.thread"
            and relation.get("event_id") == root
        )

    return matches


@asynccontextmanager
async def running(adapter: MatrixAdapter, handler: EventHandler) -> AsyncIterator[MatrixAdapter]:
    """Run the adapter in a task until the block ends (a bot process, started and stopped)."""
    task = asyncio.create_task(adapter.run(handler))
    ready = asyncio.create_task(adapter.ready.wait())
    await asyncio.wait({task, ready}, timeout=WAIT_SECONDS, return_when=asyncio.FIRST_COMPLETED)
    if task.done():
        ready.cancel()
        task.result()  # raises what stopped it
    assert adapter.ready.is_set(), "the adapter did not finish its first sync"
    try:
        yield adapter
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
