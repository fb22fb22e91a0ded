"""The Matrix adapter (`ChatAdapter`, `PeopleDirectory`): one nio client and the parts around it.

- `login()` (token or password, device kept in the store dir), then `run(handler)`: the sync loop
  (`sync.SyncLoop`: backlog skipped, long polls) until cancelled.
- `rooms.Rooms`: which rooms are served (`rooms`, ids or aliases; empty = any room), invites,
  direct chats, and where power levels count (`authority_room`, else the served rooms).
  `receiving.Receiver`: events -> requests and decisions, handled in arrival order per thread.
  `sending.Sender`: messages, files, edits, reactions and notices into the thread.
- Encrypted rooms work the same with the `labbot[e2e]` extra (`e2ee.Encryption`: keys, trust,
  room keys for later joiners); a decision from a device the trust mode does not accept reaches
  the bot marked `untrusted_because`. Without the extra, labbot says once per room, in the log
  and the room, that it cannot read it.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from pathlib import Path

from nio import (
    AsyncClient,
    ProfileGetDisplayNameResponse,
    RoomGetStateEventResponse,
    RoomResolveAliasResponse,
)

from adapters.chat import EventHandler, Message, ThreadRef
from adapters.matrix import inbound, texts
from adapters.matrix.e2ee import Encryption, TrustMode, client_config
from adapters.matrix.gate_index import GateIndex
from adapters.matrix.receiving import Receiver
from adapters.matrix.rooms import Rooms
from adapters.matrix.sending import Sender
from adapters.matrix.session import Credentials, log_in
from adapters.matrix.sync import SyncLoop

__all__ = ["MatrixAdapter"]

log = logging.getLogger(__name__)
SEND_RETRIES = 3


@dataclass
class MatrixAdapter:
    credentials: Credentials
    store_dir: Path
    rooms: tuple[str, ...] = ()  # allowed room ids or aliases; empty = any room
    trust: TrustMode = "tofu"  # whose devices' decisions count in encrypted rooms
    authority_room: str = ""  # room id or alias whose power levels count (see rooms.Rooms)
    sync_timeout_ms: int = 30_000
    platform: str = "matrix"
    ready: asyncio.Event = field(default_factory=asyncio.Event)  # set once the backlog is skipped
    _client: AsyncClient = field(init=False)
    _served: Rooms = field(init=False)
    _sender: Sender = field(init=False)
    _receiver: Receiver = field(init=False)
    _sync: SyncLoop = field(init=False)
    _display_name: str = ""  # how people address the bot, besides its id

    def __post_init__(self) -> None:
        # nio retries a refused connection forever by default: a wrong homeserver URL would hang
        # the start. A few quick retries, then the error (the sync loop backs off on its own).
        client = AsyncClient(
            self.credentials.homeserver,
            self.credentials.user_id,
            store_path=str(self.store_dir),
            config=client_config(SEND_RETRIES),
        )
        self._client = client
        self._served = Rooms(client, self.rooms, self.store_dir, self.authority_room)
        crypto = Encryption(client, self.store_dir, self.trust, self._warn, self._served.is_allowed)
        gates = GateIndex(client)
        self._sender = Sender(client, crypto, gates)
        self._receiver = Receiver(
            client, self._served, crypto, gates, self._sender, lambda: self.bot
        )
        self._sync = SyncLoop(client, self._served, crypto, self._receiver, self.sync_timeout_ms)

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

    async def run(self, handler: EventHandler) -> None:
        """Skip the backlog, then deliver events until cancelled; closes the client at the end."""
        try:
            if not self._client.access_token:
                await self.login()
            await self._served.resolve()
            token = await self._sync.first()
            self.ready.set()
            await self._sync.forever(handler, token)
        finally:
            await self._receiver.close()
            await self._sender.close()
            await self._client.close()

    async def post(self, thread: ThreadRef, message: Message) -> str:
        to = message.ephemeral_to
        mention = self._served.actor(thread.channel, to) if to else None
        return await self._sender.post(thread, message, mention)

    async def update(self, thread: ThreadRef, message_id: str, message: Message) -> None:
        await self._sender.update(thread, message_id, message)

    async def close_gate(
        self, thread: ThreadRef, message_id: str, footer: str, mentions: tuple[str, ...] = ()
    ) -> None:
        """An edit of the gate message with the footer (a Matrix footer mentions nobody)."""
        await self._sender.close_gate(thread, message_id, footer)

    async def _warn(self, room_id: str, text: str) -> None:
        await self._sender.notice(room_id, text)

    # --- what the approval policy asks (adapters.chat.PeopleDirectory) ---------------------------

    async def place_names(self, channel: str) -> tuple[str, ...]:
        """The room's canonical alias, as synced (adapters.chat.PlaceNames)."""
        room = self._client.rooms.get(channel)
        alias = room.canonical_alias if room is not None else None
        return (alias,) if alias else ()

    async def place_id(self, place: str) -> str | None:
        """The room id of `place` (adapters.chat.PlaceIds): a room id is its own, an alias
        `#name:server` is resolved by the homeserver; None when it cannot be now."""
        if not place.startswith("#"):
            return place
        response = await self._client.room_resolve_alias(place)
        if isinstance(response, RoomResolveAliasResponse):
            return str(response.room_id)
        log.warning("cannot resolve %s (%s)", place, response)
        return None

    async def is_direct(self, channel: str) -> bool:
        """A room the bot was invited to as a direct chat (`is_direct`, as clients do for DMs)."""
        return self._served.is_direct(channel)

    async def members(self, group: str) -> frozenset[str]:
        return frozenset()  # Matrix has no user groups; rules use power levels

    async def power_level(self, channel: str, user_id: str) -> int:
        """The user's level in the current m.room.power_levels of the room that has authority
        over `channel` (`Rooms.authority_for`); 0 where none has, or when unreadable."""
        room = self._served.authority_for(channel)
        if room is None:
            log.info(texts.NO_AUTHORITY, channel)
            return 0
        response = await self._client.room_get_state_event(room, "m.room.power_levels")
        if not isinstance(response, RoomGetStateEventResponse):
            log.warning("cannot read the power levels of %s: %s", room, response)
            return 0
        return inbound.power_level(response.content, user_id)
