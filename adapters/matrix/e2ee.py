"""End-to-end encryption for the Matrix adapter, around nio's olm machine (`matrix-nio[e2e]`).

- Key traffic: nio does it only inside `sync_forever`; labbot syncs by hand, so `maintain()` runs
  after every sync: upload our keys, query changed devices, claim one-time keys, send the queued
  to-device messages, share room keys with people who joined.
- Trust (LABBOT_MATRIX_TRUST): `tofu` verifies the devices of the people in served rooms the
  first time it sees them and says in the room when a known person's device set changes;
  `verified` accepts decisions only from devices verified out of band (`labbot matrix verify`).
  Either way labbot encrypts to every device in the room: trust decides whose decisions count.
- Every room key labbot creates is kept from its first message (`room_keys.json`), so someone who
  joins later gets the keys of what labbot said before (rooms whose history members may read),
  as soon as the sync that brings the join is handled.
- An event labbot cannot decrypt is answered once per key session and the key is requested; if
  the key arrives later, the event is decrypted then and handled as if it had just come.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
from collections import OrderedDict, defaultdict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from aiohttp import ClientError
from nio import AsyncClient, AsyncClientConfig, EncryptionError, LocalProtocolError, MegolmEvent
from nio.crypto import ENCRYPTION_ENABLED, OlmDevice
from nio.event_builders import ToDeviceMessage

from adapters.matrix import texts

__all__ = ["E2EE_AVAILABLE", "store_file"]

log = logging.getLogger(__name__)

E2EE_AVAILABLE: bool = ENCRYPTION_ENABLED  # False without the `labbot[e2e]` extra
TrustMode = Literal["tofu", "verified"]
ROOM_KEYS_FILE = "room_keys.json"
UNDECRYPTED_KEPT = 100  # events waiting for their room key, oldest dropped first
ROOM_KEYS_KEPT = 20  # newest room keys per room shared with someone who joins later
DEVICES_PER_JOINER = 20  # devices of one person who joined that get those keys
SHARED_HISTORY = ("shared", "world_readable")  # rooms whose members may read earlier messages
MEGOLM = "m.megolm.v1.aes-sha2"


def client_config(retries: int) -> AsyncClientConfig:
    """nio's SQLite store keeps the device, its keys and the trust states in the store dir."""
    if not E2EE_AVAILABLE:
        return AsyncClientConfig(
            encryption_enabled=False, store_sync_tokens=False, max_timeouts=retries
        )
    from nio.store import SqliteStore

    return AsyncClientConfig(
        encryption_enabled=True, store=SqliteStore, store_sync_tokens=False, max_timeouts=retries
    )


def store_file(store_dir: Path, user_id: str, device_id: str) -> Path:
    """Where nio's SqliteStore keeps one device's keys (its default file name)."""
    return store_dir / f"{user_id}_{device_id}.db"


class RoomKeys:
    """The room keys labbot created, as first shared (index 0), newest last, per room."""

    def __init__(self, path: Path) -> None:
        self._path = path
        try:
            self._keys: dict[str, list[list[str]]] = json.loads(path.read_text("utf-8"))
        except (OSError, ValueError):
            self._keys = {}

    def add(self, room_id: str, session_id: str, session_key: str) -> None:
        kept = [*self._keys.get(room_id, []), [session_id, session_key]][-ROOM_KEYS_KEPT:]
        self._keys[room_id] = kept
        fd = os.open(self._path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(self._keys, handle)

    def of(self, room_id: str) -> list[tuple[str, str]]:
        return [(session_id, key) for session_id, key in self._keys.get(room_id, [])]


Warn = Callable[[str, str], Awaitable[None]]  # (room id, text): a notice in that room


@dataclass
class Encryption:
    client: AsyncClient
    store_dir: Path
    trust: TrustMode
    warn: Warn
    is_served: Callable[[str], bool]
    _room_keys: RoomKeys = field(init=False)
    _share_locks: defaultdict[str, asyncio.Lock] = field(
        default_factory=lambda: defaultdict(asyncio.Lock)
    )
    _joiners: set[tuple[str, str]] = field(default_factory=set)  # (room, user) to give keys
    _joined_now: bool = False  # a joiner noted in the sync being handled
    _noticed: set[str] = field(default_factory=set)  # key sessions told about
    _undecrypted: OrderedDict[str, MegolmEvent] = field(default_factory=OrderedDict)  # by id
    _device_news: list[tuple[str, OlmDevice]] = field(default_factory=list)  # (text, device)

    def __post_init__(self) -> None:
        self._room_keys = RoomKeys(self.store_dir / ROOM_KEYS_FILE)

    @property
    def active(self) -> bool:
        return self.client.olm is not None

    def encrypted(self, room_id: str) -> bool:
        room = self.client.rooms.get(room_id)
        return room is not None and room.encrypted

    # --- key traffic --------------------------------------------------------------------------

    async def maintain(self) -> None:
        """What `sync_forever` would do between syncs; run before the sync's events are handled,
        so the devices of a decision's sender are known when it is checked. A failure is logged
        and retried after the next sync (nio keeps what is still to do)."""
        if not self.active:
            return
        try:
            await self._key_traffic()
        except (ClientError, TimeoutError, LocalProtocolError) as exc:
            log.warning("Matrix key exchange failed (%s); retrying after the next sync", exc)
        # Announced here, never while sending: a notice is itself a send into that room.
        news, self._device_news = self._device_news, []
        for text, device in news:
            await self._announce(text, device)

    async def _key_traffic(self) -> None:
        client = self.client
        if client.should_upload_keys:
            await client.keys_upload()
        if client.should_query_keys:
            await self._query_keys()
        if client.should_claim_keys:
            await client.keys_claim(client.get_users_for_key_claiming())
        await client.send_to_device_messages()
        await self._share_with_joiners()

    async def _query_keys(self) -> None:
        """Query changed devices; under tofu, trust new ones and note what changed for people
        labbot already knew (announced by `maintain`)."""
        before = self._active_devices()
        await self.client.keys_query()
        if self.trust != "tofu" or self.client.olm is None:
            return
        after = self._active_devices()
        known_users = {user for user, _ in before}
        for key, device in after.items():
            if key in before or device.blacklisted or not self._shares_served_room(key[0]):
                continue
            if not self.client.olm.is_device_verified(device):
                self.client.verify_device(device)
            if device.user_id in known_users:
                self._device_news.append((texts.NEW_DEVICE, device))
        for key, device in before.items():
            if key not in after and self._shares_served_room(key[0]):
                self._device_news.append((texts.DEVICE_GONE, device))

    def _active_devices(self) -> dict[tuple[str, str], OlmDevice]:
        return {(d.user_id, d.id): d for d in self.client.device_store if not d.deleted}

    async def _announce(self, text: str, device: OlmDevice) -> None:
        """Tell every served encrypted room the device's owner is in."""
        text = text.format(
            user=device.user_id, device=device.id, name=device.display_name or "no name"
        )
        log.warning(text)
        for room_id, room in list(self.client.rooms.items()):
            if room.encrypted and self.is_served(room_id) and device.user_id in room.users:
                try:
                    await self.warn(room_id, text)
                except Exception as exc:  # the sync loop must go on; the log has the warning
                    log.warning("cannot tell %s about a device change: %s", room_id, exc)

    def _shares_served_room(self, user_id: str) -> bool:
        return any(
            user_id in room.users and self.is_served(room_id)
            for room_id, room in self.client.rooms.items()
        )

    async def before_send(self, room_id: str) -> None:
        """Share a fresh room key when the room needs one, and keep it for later joiners (its
        first index: after `room_send` encrypts, the index has moved on)."""
        room = self.client.rooms.get(room_id)
        olm = self.client.olm
        if olm is None or room is None or not room.encrypted:
            return
        async with self._share_locks[room_id]:
            if not room.members_synced:
                await self.client.joined_members(room_id)
            if self.client.should_query_keys:
                await self._query_keys()
            if olm.should_share_group_session(room_id):
                await self.client.share_group_session(room_id, ignore_unverified_devices=True)
                session = olm.outbound_group_sessions[room_id]
                self._room_keys.add(room_id, session.id, session.session_key)

    # --- people who join later ----------------------------------------------------------------

    def note_member(self, room_id: str, source: dict[str, Any]) -> None:
        """Someone joined a served encrypted room: give them labbot's earlier room keys."""
        user_id = str(source.get("state_key", ""))
        joined = source.get("content", {}).get("membership") == "join"
        if not joined or user_id == self.client.user_id or self.client.olm is None:
            return
        if self.encrypted(room_id) and self.is_served(room_id):
            self._joiners.add((room_id, user_id))
            self._joined_now = True
            self.client.olm.users_for_key_query.add(user_id)

    async def welcome_joiners(self) -> None:
        """Give who joined in the sync just handled labbot's earlier room keys now: the next
        sync's `maintain` comes only when something else happens, up to the sync's timeout
        later in a quiet room (the joiner could not read the gate until then). Only for a join
        in this sync: a joiner still waiting for its devices waits for the next sync's traffic."""
        if self._joined_now:
            self._joined_now = False
            await self.maintain()

    async def _share_with_joiners(self) -> None:
        olm = self.client.olm
        waiting = set()
        for room_id, user_id in self._joiners:
            room = self.client.rooms.get(room_id)
            keys = self._room_keys.of(room_id)
            if olm is None or room is None or room.history_visibility not in SHARED_HISTORY:
                continue
            if user_id in olm.users_for_key_query:
                waiting.add((room_id, user_id))  # their devices are not known yet
                continue
            devices = list(self.client.device_store.active_user_devices(user_id))
            await self._send_room_keys(room_id, devices[:DEVICES_PER_JOINER], keys)
        self._joiners = waiting

    async def _send_room_keys(
        self, room_id: str, devices: list[OlmDevice], keys: list[tuple[str, str]]
    ) -> None:
        olm = self.client.olm
        if olm is None or not devices or not keys:
            return
        missing = [d for d in devices if olm.session_store.get(d.curve25519) is None]
        if missing:
            await self.client.keys_claim({missing[0].user_id: [d.id for d in missing]})
        for device in devices:
            session = olm.session_store.get(device.curve25519)
            if session is None:
                log.warning(
                    "no Olm session with %s %s: room keys not shared", device.user_id, device.id
                )
                continue
            for session_id, session_key in keys:  # one at a time: each advances the Olm session
                content = {
                    "algorithm": MEGOLM,
                    "room_id": room_id,
                    "session_id": session_id,
                    "session_key": session_key,
                }
                # nio has no public call to send one m.room_key to one device.
                encrypted = olm._olm_encrypt(session, device, "m.room_key", content)
                message = ToDeviceMessage("m.room.encrypted", device.user_id, device.id, encrypted)
                await self.client.to_device(message)

    # --- what came in -------------------------------------------------------------------------

    async def undecryptable(self, room_id: str, event: MegolmEvent) -> bool:
        """Ask for the key of an event nio could not decrypt; True the first time per session
        (the room is told once)."""
        event.room_id = room_id
        self._undecrypted[event.event_id] = event
        while len(self._undecrypted) > UNDECRYPTED_KEPT:
            self._undecrypted.popitem(last=False)
        if event.session_id in self._noticed:
            return False
        self._noticed.add(event.session_id)
        with contextlib.suppress(LocalProtocolError):  # asked already
            await self.client.request_room_key(event)
        return True

    def decrypted_since(self) -> list[tuple[str, Any]]:
        """(room id, event) of kept events whose room key has arrived since, oldest first."""
        olm = self.client.olm
        if olm is None:
            return []
        ready = []
        for event_id, event in list(self._undecrypted.items()):
            room_id = str(event.room_id)
            if olm.inbound_group_store.get(room_id, event.sender_key, event.session_id) is None:
                continue
            del self._undecrypted[event_id]
            try:
                ready.append((room_id, self.client.decrypt_event(event)))
            except EncryptionError as exc:
                log.warning("cannot decrypt %s in %s: %s", event_id, room_id, exc)
        return ready

    def untrusted_because(self, room_id: str, event: Any) -> str:
        """Why a decision event cannot be taken as its sender's ("" when it can)."""
        if not self.active or not self.encrypted(room_id):
            return ""
        if not getattr(event, "decrypted", False):
            return texts.UNENCRYPTED_DECISION if self.trust == "verified" else ""
        device = self._sending_device(room_id, event)
        if device is None:
            return texts.UNKNOWN_DEVICE.format(device=getattr(event, "sender_key", "")[:12])
        if device.blacklisted:
            return texts.BLOCKED_DEVICE.format(device=device.id)
        if self._verified(device):
            return ""
        if self.trust == "tofu":
            self.client.verify_device(device)  # first seen in this very event
            return ""
        return texts.UNVERIFIED_DEVICE.format(user=device.user_id, device=device.id)

    def _sending_device(self, room_id: str, event: Any) -> OlmDevice | None:
        """The device whose room key encrypted `event`: its Curve25519 key sent the key to us
        and its Ed25519 key signed it (a forwarded key proves nothing about the sender)."""
        olm = self.client.olm
        if olm is None:
            return None
        device = olm.device_store.device_from_sender_key(event.sender, event.sender_key)
        session = olm.inbound_group_store.get(room_id, event.sender_key, event.session_id)
        if device is None or session is None or session.forwarding_chain:
            return None
        return device if session.ed25519 == device.ed25519 else None

    def _verified(self, device: OlmDevice) -> bool:
        """Read from the store, so `labbot matrix verify` counts while labbot runs."""
        olm = self.client.olm
        return olm is not None and olm.is_device_verified(device)
