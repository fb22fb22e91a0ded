"""The Matrix adapter: matrix-nio `AsyncClient` I/O around the pure `inbound`/`outbound` modules.

- `login()` (token or password, device kept in the store dir), then `run(handler)`: a first
  full-state sync whose timeline is the backlog and is never replayed, then long-poll syncs.
- Invites are joined only for allowed rooms (`rooms`, ids or aliases; empty = any room), and
  events of other rooms are ignored.
- Every event is handled in its own task, serialized per thread, so one long push does not hold
  up other rooms and the sync loop keeps running.
- Encrypted rooms work the same with the `labbot[e2e]` extra (`e2ee.Encryption`: keys, trust,
  room keys for later joiners); a decision from a device the trust mode does not accept reaches
  the bot marked `untrusted_because`. Without the extra, labbot says once per room, in the log
  and the room, that it cannot read it.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import io
import logging
import secrets
import time
from collections import defaultdict
from collections.abc import Coroutine, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiohttp import ClientError
from nio import (
    AsyncClient,
    JoinError,
    MegolmEvent,
    ProfileGetDisplayNameResponse,
    RoomGetStateEventResponse,
    RoomResolveAliasResponse,
    RoomSendResponse,
    SyncResponse,
    UploadResponse,
)

from adapters.chat import (
    Actor,
    ChatEvent,
    EventHandler,
    FileAttachment,
    Message,
    Request,
    ThreadRef,
)
from adapters.matrix import inbound, outbound, texts
from adapters.matrix.direct import DirectRooms
from adapters.matrix.e2ee import Encryption, TrustMode, client_config
from adapters.matrix.gates import GateIndex
from adapters.matrix.session import Credentials, log_in

log = logging.getLogger(__name__)
# Events whose server time is this much before our start are backlog even when a later sync
# brings them (a room joined after start replays its recent history).
CLOCK_SKEW_MS = 60_000
RETRY_SECONDS = (1, 2, 5, 10, 30)
SEND_RETRIES = 3


def first_sync_filter() -> dict[str, Any]:
    """A filter unique to this start. Synapse answers a repeated sync request (same device,
    filter and token) from a cache for minutes: after a quick restart the cached answer's token
    would replay everything since the previous start, old requests included."""
    nonce = f"org.labbot.start.{secrets.token_hex(8)}"
    return {"room": {"timeline": {"limit": 1, "not_types": [nonce]}}}


class MatrixSendError(RuntimeError):
    """The homeserver refused an event the bot sent."""


@dataclass
class MatrixAdapter:
    credentials: Credentials
    store_dir: Path
    rooms: tuple[str, ...] = ()  # allowed room ids or aliases; empty = any room
    trust: TrustMode = "tofu"  # whose devices' decisions count in encrypted rooms
    sync_timeout_ms: int = 30_000
    platform: str = "matrix"
    ready: asyncio.Event = field(default_factory=asyncio.Event)  # set once the backlog is skipped
    _client: AsyncClient = field(init=False)
    _gates: GateIndex = field(init=False)
    _crypto: Encryption = field(init=False)
    _allowed: set[str] | None = None
    _display_name: str = ""  # how people address the bot, besides its id
    _started_ms: int = 0
    _last_in_thread: dict[str, str] = field(default_factory=dict)  # reply-fallback target
    _locks: defaultdict[str, asyncio.Lock] = field(
        default_factory=lambda: defaultdict(asyncio.Lock)
    )
    _tasks: set[asyncio.Task[None]] = field(default_factory=set)
    _encryption_noted: set[str] = field(default_factory=set)
    _direct: DirectRooms = field(init=False)  # rooms invited to as direct chats

    def __post_init__(self) -> None:
        # nio retries a refused connection forever by default: a wrong homeserver URL would hang
        # the start. A few quick retries, then the error (the sync loop backs off on its own).
        self._client = AsyncClient(
            self.credentials.homeserver,
            self.credentials.user_id,
            store_path=str(self.store_dir),
            config=client_config(SEND_RETRIES),
        )
        self._gates = GateIndex(self._client)
        self._direct = DirectRooms(self.store_dir)
        self._crypto = Encryption(
            self._client, self.store_dir, self.trust, self._notice, self._is_allowed
        )

    @property
    def bot(self) -> inbound.BotIdentity:
        localpart = self._client.user_id[1:].split(":", 1)[0]
        return inbound.BotIdentity(self._client.user_id, self._display_name or localpart)

    async def login(self) -> None:
        """Raises `MatrixLoginError` with a one-line fix when the homeserver says no."""
        await log_in(self._client, self.credentials, self.store_dir)
        profile = await self._client.get_displayname()
        if isinstance(profile, ProfileGetDisplayNameResponse) and profile.displayname:
            self._display_name = profile.displayname

    async def close(self) -> None:
        await self._client.close()

    # --- inbound ------------------------------------------------------------------------------

    async def run(self, handler: EventHandler) -> None:
        """Skip the backlog, then deliver events until cancelled; closes the client at the end."""
        try:
            if not self._client.access_token:
                await self.login()
            self._started_ms = int(time.time() * 1000) - CLOCK_SKEW_MS
            self._allowed = await self._resolve_rooms()
            token = await self._first_sync()
            self.ready.set()
            await self._sync_forever(handler, token)
        finally:
            await self._stop_tasks()
            await self._client.close()

    async def _first_sync(self) -> str:
        response = await self._sync(timeout=0, full_state=True, sync_filter=first_sync_filter())
        await self._accept_invites(response)
        await self._join_configured_rooms()
        await self._crypto.maintain()
        for room_id, room in self._client.rooms.items():
            if room.encrypted and self._is_allowed(room_id) and not self._crypto.active:
                log.warning(texts.E2EE_LOG, room_id)
        return str(response.next_batch)

    async def _sync_forever(self, handler: EventHandler, token: str) -> None:
        while True:
            response = await self._sync(timeout=self.sync_timeout_ms, since=token)
            await self._accept_invites(response)
            await self._crypto.maintain()
            for room_id, late in self._crypto.decrypted_since():  # their keys came at last
                await self._note_event(room_id, late, handler)
            await self._dispatch(response, handler)
            token = response.next_batch

    async def _sync(self, **options: Any) -> SyncResponse:
        """One sync, retried with backoff while the homeserver fails or cannot be reached."""
        failures = 0
        while True:
            try:
                response = await self._client.sync(**options)
            except (ClientError, TimeoutError) as exc:
                response = exc
            if isinstance(response, SyncResponse):
                return response
            delay = RETRY_SECONDS[min(failures, len(RETRY_SECONDS) - 1)]
            log.warning("Matrix sync failed (%s); retrying in %ss", response, delay)
            await asyncio.sleep(delay)
            failures += 1

    async def _dispatch(self, response: SyncResponse, handler: EventHandler) -> None:
        for room_id, info in response.rooms.join.items():
            if not self._is_allowed(room_id):
                continue
            redacted = inbound.redacted_ids(event.source for event in info.timeline.events)
            for event in info.timeline.events:
                source = event.source
                if source.get("event_id") in redacted or not inbound.is_fresh(
                    source, self._started_ms
                ):
                    continue
                await self._note_event(room_id, event, handler)

    async def _note_event(self, room_id: str, event: Any, handler: EventHandler) -> None:
        """`event` is nio's: decrypted where nio could, which the trust check needs to know."""
        source: Mapping[str, Any] = event.source
        if source.get("type") == "m.room.encrypted":
            try:
                await self._undecryptable(room_id, event)
            except (MatrixSendError, ClientError, TimeoutError) as exc:
                log.warning("cannot tell %s about an undecryptable event: %s", room_id, exc)
            return
        if source.get("type") == "m.room.member":
            self._crypto.note_member(room_id, dict(source))
        root = inbound.thread_root(source.get("content", {}))
        if root:
            self._last_in_thread[ThreadRef(self.platform, room_id, root).key] = source["event_id"]
        sender = str(source.get("sender", ""))
        meant = inbound.translate(room_id, source, self._actor(room_id, sender), self.bot)
        if isinstance(meant, inbound.Reply | inbound.Reaction):
            doubt = self._crypto.untrusted_because(room_id, event)
            meant = dataclasses.replace(meant, untrusted_because=doubt)
        if meant is not None:
            self._spawn(self._deliver(meant, handler))

    async def _deliver(self, event: inbound.Inbound, handler: EventHandler) -> None:
        """Events of one thread run one at a time, in arrival order: a reply is matched to the
        thread's gate only after what came before it (the request posting that gate) is done."""
        try:
            if isinstance(event, inbound.Reaction):
                gate = await self._gates.by_event(event.room_id, event.target)
                thread_key = gate.thread.key if gate else None
            else:
                thread_key = event.thread.key
            if thread_key is None:
                return
            async with self._locks[thread_key]:
                chat_event = await self._resolve(event)
                if chat_event is not None:
                    await handler(chat_event)
        except Exception:
            log.exception("handling a Matrix event failed: %s", event)

    async def _resolve(self, event: inbound.Inbound) -> ChatEvent | None:
        """A `Request` as it is; a reply or reaction becomes a `Decision` on its gate."""
        if isinstance(event, Request):
            return event
        if isinstance(event, inbound.Reaction):
            gate = await self._gates.by_event(event.room_id, event.target)
        else:
            gate = await self._gates.for_thread(event.thread)
            if gate is None and event.addressed:  # the bot answers where this thread stands
                return Request(event.thread, event.actor, "status")
        if gate is None or event.choice not in gate.choices:
            return None
        decision = inbound.decision(gate, event)
        if decision.choice == "modify" and not decision.feedback and not event.untrusted_because:
            await self.post(gate.thread, Message(texts.ASK_FEEDBACK, ephemeral_to=event.actor.id))
            return None
        return decision

    # --- rooms --------------------------------------------------------------------------------

    async def _resolve_rooms(self) -> set[str] | None:
        if not self.rooms:
            return None
        allowed = set()
        for room in self.rooms:
            if not room.startswith("#"):
                allowed.add(room)
                continue
            response = await self._client.room_resolve_alias(room)
            if isinstance(response, RoomResolveAliasResponse):
                allowed.add(response.room_id)
            else:
                log.warning("LABBOT_MATRIX_ROOMS: cannot resolve %s (%s)", room, response)
        return allowed

    def _is_allowed(self, room_id: str) -> bool:
        return self._allowed is None or room_id in self._allowed

    async def _accept_invites(self, response: SyncResponse) -> None:
        for room_id, info in response.rooms.invite.items():
            if inbound.invited_as_direct(info.invite_state, self._client.user_id):
                self._direct.add(room_id)
            if self._is_allowed(room_id):
                result = await self._client.join(room_id)
                if isinstance(result, JoinError):
                    log.warning("cannot join %s: %s", room_id, result.message)
            else:
                log.info(texts.ROOM_NOT_ALLOWED, room_id)
                await self._client.room_leave(room_id)

    async def _join_configured_rooms(self) -> None:
        for room_id in sorted(self._allowed or ()):
            if room_id not in self._client.rooms:
                result = await self._client.join(room_id)
                if isinstance(result, JoinError):
                    log.warning("cannot join %s: %s", room_id, result.message)

    async def _undecryptable(self, room_id: str, event: Any) -> None:
        """Said once: per room without the e2e extra, per key session with it."""
        if not self._crypto.active:
            if room_id not in self._encryption_noted:
                self._encryption_noted.add(room_id)
                log.warning(texts.E2EE_LOG, room_id)
                await self._notice(room_id, texts.E2EE_UNSUPPORTED)
            return
        if not isinstance(event, MegolmEvent) or event.sender == self._client.user_id:
            return
        if await self._crypto.undecryptable(room_id, event):
            name = self._actor(room_id, event.sender).name
            root = inbound.thread_root(event.source.get("content", {}))
            await self._notice(room_id, texts.UNDECRYPTABLE.format(sender=name), root)

    async def _notice(self, room_id: str, text: str, thread_root: str = "") -> None:
        """A notice outside the gate flow (encryption problems, device warnings)."""
        content = outbound.notice_content(text)
        if thread_root:
            content = outbound.in_thread(content, thread_root, thread_root)
        await self._send(room_id, "m.room.message", content)

    def _actor(self, room_id: str, user_id: str) -> Actor:
        room = self._client.rooms.get(room_id)
        name = room.user_name(user_id) if room is not None else None
        return Actor(user_id, name or user_id)

    # --- what the approval policy asks (adapters.chat.PeopleDirectory) ---------------------------

    async def is_direct(self, channel: str) -> bool:
        """A room the bot was invited to as a direct chat (`is_direct`, as clients do for DMs)."""
        return channel in self._direct

    async def members(self, group: str) -> frozenset[str]:
        return frozenset()  # Matrix has no user groups; rules use power levels

    async def power_level(self, channel: str, user_id: str) -> int:
        """The user's level in the room's current m.room.power_levels (0 when unreadable)."""
        response = await self._client.room_get_state_event(channel, "m.room.power_levels")
        if not isinstance(response, RoomGetStateEventResponse):
            log.warning("cannot read the power levels of %s: %s", channel, response)
            return 0
        return inbound.power_level(response.content, user_id)

    # --- outbound -----------------------------------------------------------------------------

    async def post(self, thread: ThreadRef, message: Message) -> str:
        mention = (
            self._actor(thread.channel, message.ephemeral_to) if message.ephemeral_to else None
        )
        first_id = ""
        for content in outbound.message_contents(message, mention):
            reply_to = self._last_in_thread.get(thread.key, thread.thread)
            threaded = outbound.in_thread(content, thread.thread, reply_to)
            event_id = await self._send(thread.channel, "m.room.message", threaded)
            self._last_in_thread[thread.key] = event_id
            if not first_id:
                first_id = event_id
                self._remember_gate(thread, event_id, threaded)
        for attached in message.files:
            content = await self._upload(thread.channel, attached)
            reply_to = self._last_in_thread.get(thread.key, thread.thread)
            threaded = outbound.in_thread(content, thread.thread, reply_to)
            self._last_in_thread[thread.key] = await self._send(
                thread.channel, "m.room.message", threaded
            )
        return first_id

    async def _upload(self, room_id: str, attached: FileAttachment) -> dict[str, Any]:
        """Into the media repository (encrypted for an encrypted room); the event's content."""
        room = self._client.rooms.get(room_id)
        encrypt = bool(room and room.encrypted)
        response, keys = await self._client.upload(
            io.BytesIO(attached.data),
            content_type=attached.mime,
            filename=attached.name,
            encrypt=encrypt,
            filesize=len(attached.data),
        )
        if not isinstance(response, UploadResponse):
            raise MatrixSendError(f"cannot upload {attached.name} to Matrix: {response}")
        return outbound.file_content(attached, response.content_uri, keys if encrypt else None)

    async def update(self, thread: ThreadRef, message_id: str, message: Message) -> None:
        await self._send(
            thread.channel, "m.room.message", outbound.edit_content(message_id, message)
        )

    def _remember_gate(self, thread: ThreadRef, event_id: str, content: dict[str, Any]) -> None:
        """Index a gate message and add the reactions people click to decide it. The reactions
        are a convenience: they go out in the background, not holding up the thread."""
        source = {"sender": self._client.user_id, "event_id": event_id, "content": content}
        gate = inbound.gate_ref(thread.channel, source, self._client.user_id)
        if gate is not None:
            self._gates.remember(gate)
            self._spawn(self._add_reactions(gate))

    async def _add_reactions(self, gate: inbound.GateRef) -> None:
        try:
            for choice in gate.choices:
                content = outbound.reaction_content(gate.event_id, outbound.REACTION_KEYS[choice])
                await self._send(gate.thread.channel, "m.reaction", content)
        except (MatrixSendError, ClientError, TimeoutError) as exc:
            log.warning("cannot add the decision reactions to %s: %s", gate.event_id, exc)

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _send(self, room_id: str, event_type: str, content: dict[str, Any]) -> str:
        """Sent encrypted in encrypted rooms (to every device there: trust decides whose
        decisions count, not who may read), except reactions, as Element sends them."""
        await self._crypto.before_send(room_id)
        response = await self._client.room_send(
            room_id, event_type, content, ignore_unverified_devices=True
        )
        if not isinstance(response, RoomSendResponse):
            raise MatrixSendError(f"cannot send to Matrix room {room_id}: {response}")
        return str(response.event_id)

    async def _stop_tasks(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError):
                await task
