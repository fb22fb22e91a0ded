"""People in the tests: nio `AsyncClient`s that talk to the real Synapse and record what they see.

Each user syncs in the background and keeps every timeline event of every room; `wait_for`
polls that record for an event matching a predicate. Given a store dir, a user is an E2EE client
(nio's olm machine, like Element's): it uploads keys, encrypts what it says in encrypted rooms and
records what it could decrypt.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
from nio import (
    AsyncClient,
    AsyncClientConfig,
    EncryptionError,
    MegolmEvent,
    RoomCreateResponse,
    RoomGetEventResponse,
    RoomSendResponse,
    SyncResponse,
)
from nio.api import Api
from nio.event_builders import ToDeviceMessage

from adapters.chat import EventHandler
from adapters.matrix.adapter import MatrixAdapter
from tests.fakes.synapse import MatrixAccount

Event = dict[str, Any]
WAIT_SECONDS = 20.0


class ChatUser:
    def __init__(
        self, homeserver: str, account: MatrixAccount, store_dir: Path | None = None
    ) -> None:
        self.account = account
        self.user_id = account.user_id
        self.device_id = account.device_id
        if store_dir is not None:
            from nio.store import SqliteStore

            store_dir.mkdir(parents=True, exist_ok=True)
            config = AsyncClientConfig(store=SqliteStore, store_sync_tokens=False)
            self.client = AsyncClient(
                homeserver, account.user_id, store_path=str(store_dir), config=config
            )
        else:
            self.client = AsyncClient(
                homeserver, account.user_id, config=AsyncClientConfig(encryption_enabled=False)
            )
        self.client.restore_login(account.user_id, account.device_id, account.access_token)
        self.events: list[tuple[str, Event]] = []  # (room id, event source), in arrival order
        self._task: asyncio.Task[None] | None = None
        self._changed = asyncio.Event()  # set whenever events arrive

    async def start(self) -> None:
        first = await self.client.sync(timeout=0, full_state=True)
        assert isinstance(first, SyncResponse), first
        await self._keys()
        self._task = asyncio.create_task(self._sync(first.next_batch))

    async def _keys(self) -> None:
        """The key traffic `sync_forever` would do (this client syncs by hand, as labbot does)."""
        client = self.client
        if client.olm is None:
            return
        if client.should_upload_keys:
            await client.keys_upload()
        if client.should_query_keys:
            await client.keys_query()
        if client.should_claim_keys:
            await client.keys_claim(client.get_users_for_key_claiming())
        await client.send_to_device_messages()

    async def _sync(self, token: str) -> None:
        while True:
            response = await self.client.sync(timeout=500, since=token)
            if not isinstance(response, SyncResponse):
                await asyncio.sleep(0.2)
                continue
            await self._keys()
            for room_id, info in response.rooms.join.items():
                self.events.extend((room_id, event.source) for event in info.timeline.events)
            self._changed.set()
            token = response.next_batch

    async def close(self, *, log_out: bool = False) -> None:
        """Stop syncing and close; `log_out` also removes this device from the account."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        if log_out and self.client.logged_in:
            await self.client.logout()
        await self.client.close()

    # --- acting -------------------------------------------------------------------------------

    async def create_room(
        self, invite: list[str], *, encrypted: bool = False, alias: str = ""
    ) -> str:
        """A new room (its canonical alias `#ALIAS:server` when `alias` is given)."""
        state = []
        if encrypted:
            state.append(
                {
                    "type": "m.room.encryption",
                    "state_key": "",
                    "content": {"algorithm": "m.megolm.v1.aes-sha2"},
                }
            )
        response = await self.client.room_create(
            invite=invite, initial_state=state, alias=alias or None
        )
        assert isinstance(response, RoomCreateResponse), response
        return str(response.room_id)

    async def join(self, room_id: str) -> None:
        await self.client.join(room_id)

    async def send(self, room_id: str, event_type: str, content: dict[str, Any]) -> str:
        """Encrypted in an encrypted room (this client trusts every device it meets)."""
        response = await self.client.room_send(
            room_id, event_type, content, ignore_unverified_devices=True
        )
        assert isinstance(response, RoomSendResponse), response
        return str(response.event_id)

    async def send_encrypted_reaction(
        self, room_id: str, event_id: str, key: str, *, relation_in_clear: bool = True
    ) -> str:
        """A reaction as some clients send it in encrypted rooms (nio itself sends them plain);
        without `relation_in_clear` the homeserver cannot see what it annotates (nor check it)."""
        relation = {"rel_type": "m.annotation", "event_id": event_id, "key": key}
        await self._know_room_devices(room_id)
        assert self.client.olm is not None
        if self.client.olm.should_share_group_session(room_id):
            await self.client.share_group_session(room_id, ignore_unverified_devices=True)
        kind, content = self.client.encrypt(room_id, "m.reaction", {"m.relates_to": relation})
        if not relation_in_clear:
            content.pop("m.relates_to", None)
        return await self.send_raw(room_id, kind, content)

    async def _know_room_devices(self, room_id: str) -> None:
        """What nio's `room_send` makes sure of before encrypting: the members and their keys."""
        assert self.client.olm is not None, "needs an E2EE user"
        if not self.client.rooms[room_id].members_synced:
            await self.client.joined_members(room_id)
        if self.client.should_query_keys:
            await self.client.keys_query()

    async def send_raw(self, room_id: str, event_type: str, content: dict[str, Any]) -> str:
        """Send exactly this event: no encryption by this client."""
        method, path, data = Api.room_send(
            self.client.access_token, room_id, event_type, content, f"raw{time.monotonic_ns()}"
        )
        response = await self.client._send(RoomSendResponse, method, path, data, (room_id,))
        assert isinstance(response, RoomSendResponse), response
        return str(response.event_id)

    async def say_withholding_key(self, room_id: str, body: str) -> tuple[str, dict[str, str]]:
        """Say something in a fresh room key shared with nobody (a client that failed to share
        it); returns the event id and the key, for `give_room_key` later."""
        await self._know_room_devices(room_id)
        olm = self.client.olm
        assert olm is not None
        olm.create_outbound_group_session(room_id)
        session = olm.outbound_group_sessions[room_id]
        session.shared = True  # it is not: nobody got the key
        key = {
            "algorithm": "m.megolm.v1.aes-sha2",
            "room_id": room_id,
            "session_id": session.id,
            "session_key": session.session_key,  # index 0: before the message below
        }
        kind, content = self.client.encrypt(
            room_id, "m.room.message", {"msgtype": "m.text", "body": body}
        )
        event_id = await self.send_raw(room_id, kind, content)
        self.client.invalidate_outbound_session(room_id)
        return event_id, key

    async def give_room_key(self, key: dict[str, str], user_id: str) -> None:
        """Send a room key to every device of `user_id` (Olm-encrypted, as clients share keys)."""
        olm = self.client.olm
        assert olm is not None, "needs an E2EE user"
        devices = list(olm.device_store.active_user_devices(user_id))
        missing = [d.id for d in devices if olm.session_store.get(d.curve25519) is None]
        if missing:
            await self.client.keys_claim({user_id: missing})
        for device in devices:
            session = olm.session_store.get(device.curve25519)
            encrypted = olm._olm_encrypt(session, device, "m.room_key", key)
            await self.client.to_device(
                ToDeviceMessage("m.room.encrypted", user_id, device.id, encrypted)
            )

    async def read(self, room_id: str, event_id: str, within: float = WAIT_SECONDS) -> Event:
        """An event as this user's client shows it: decrypted, waiting for its key if need be."""
        deadline = time.monotonic() + within
        while True:
            response = await self.client.room_get_event(room_id, event_id)
            assert isinstance(response, RoomGetEventResponse), response
            event = response.event
            if not isinstance(event, MegolmEvent):
                return dict(event.source)
            event.room_id = room_id
            with contextlib.suppress(EncryptionError):
                return dict(self.client.decrypt_event(event).source)
            if time.monotonic() > deadline:
                raise AssertionError(f"{self.user_id} cannot decrypt {event_id} in {within}s")
            await asyncio.sleep(0.3)

    async def say(self, room_id: str, body: str, *, thread: str = "", reply_to: str = "") -> str:
        """In `thread`: a reply to `reply_to`, else (as Element does) to the thread's latest
        event this user has seen, the thread fallback."""
        content: dict[str, Any] = {"msgtype": "m.text", "body": body}
        if thread:
            seen = [e["event_id"] for e in self.in_thread(room_id, thread)]
            content["m.relates_to"] = {
                "rel_type": "m.thread",
                "event_id": thread,
                "is_falling_back": not reply_to,
                "m.in_reply_to": {"event_id": reply_to or (seen[-1] if seen else thread)},
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

    def raw_events(self, room_id: str) -> list[Event]:
        """The room's events as the homeserver stores them: what anyone on the wire sees."""
        response = httpx.get(
            f"{self.client.homeserver}/_matrix/client/v3/rooms/{room_id}/messages",
            params={"dir": "b", "limit": 1000},
            headers={"Authorization": f"Bearer {self.client.access_token}"},
            timeout=10,
        )
        response.raise_for_status()
        return list(response.json()["chunk"])

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
