"""Which rooms labbot serves and who is in them: the allow-list, invites, direct chats, names.

- `LABBOT_MATRIX_ROOMS` holds room ids or aliases (resolved once at start); empty = any room.
- Power levels mean approval only where labbot was told they do: in the authority room
  (LABBOT_MATRIX_AUTHORITY_ROOM) when one is set, else in the room itself when it is one of
  LABBOT_MATRIX_ROOMS. A room anyone else created (its creator holds power 100 there) is not such
  a place.
- Invites to allowed rooms are joined, others declined; a room invited to as a direct chat is
  remembered (`DirectRooms`), since only the invite says so.
"""

from __future__ import annotations

import logging
from pathlib import Path

from nio import AsyncClient, JoinError, RoomResolveAliasResponse, SyncResponse

from adapters.chat import Actor
from adapters.matrix import inbound, texts
from adapters.matrix.direct_rooms import DirectRooms

log = logging.getLogger(__name__)


class Rooms:
    def __init__(
        self, client: AsyncClient, wanted: tuple[str, ...], store_dir: Path, authority: str = ""
    ) -> None:
        self._client = client
        self._wanted = wanted  # room ids or aliases; empty = any room
        self._allowed: set[str] | None = None  # resolved ids; None = any room
        self._authority = authority  # room id or alias whose power levels count everywhere
        self._authority_id: str | None = None  # resolved; None: none set, or not resolvable
        self._direct = DirectRooms(store_dir)

    async def resolve(self) -> None:
        """Turn the configured aliases into room ids (an unknown alias is logged and skipped)."""
        if self._authority:
            self._authority_id = await self._room_id(self._authority, "AUTHORITY_ROOM")
        if not self._wanted:
            return
        resolved = [await self._room_id(room, "ROOMS") for room in self._wanted]
        self._allowed = {room_id for room_id in resolved if room_id}

    async def _room_id(self, room: str, setting: str) -> str | None:
        if not room.startswith("#"):
            return room
        response = await self._client.room_resolve_alias(room)
        if isinstance(response, RoomResolveAliasResponse):
            return str(response.room_id)
        log.warning("LABBOT_MATRIX_%s: cannot resolve %s (%s)", setting, room, response)
        return None

    def is_allowed(self, room_id: str) -> bool:
        return self._allowed is None or room_id in self._allowed

    def authority_for(self, room_id: str) -> str | None:
        """The room whose power levels count for a decision made in `room_id`: the authority
        room, else `room_id` when it is a configured room; None: power levels count nothing."""
        if self._authority:
            return self._authority_id
        return room_id if self._allowed is not None and room_id in self._allowed else None

    def is_direct(self, room_id: str) -> bool:
        return room_id in self._direct

    async def accept_invites(self, response: SyncResponse) -> None:
        for room_id, info in response.rooms.invite.items():
            if inbound.invited_as_direct(info.invite_state, self._client.user_id):
                self._direct.add(room_id)
            if self.is_allowed(room_id):
                await self._join(room_id)
            else:
                log.info(texts.ROOM_NOT_ALLOWED, room_id)
                await self._client.room_leave(room_id)

    async def join_configured(self) -> None:
        """Join the allowed rooms labbot is not in yet (no invite needed for public rooms)."""
        for room_id in sorted(self._allowed or ()):
            if room_id not in self._client.rooms:
                await self._join(room_id)

    def is_joined(self, room_id: str, user_id: str) -> bool:
        """Whether `user_id` is a joined member of the room now (an invite is not a seat)."""
        room = self._client.rooms.get(room_id)
        return room is not None and user_id in room.users and user_id not in room.invited_users

    def actor(self, room_id: str, user_id: str) -> Actor:
        """The person as the room names them (their id when the room does not know them)."""
        room = self._client.rooms.get(room_id)
        name = room.user_name(user_id) if room is not None else None
        return Actor(user_id, name or user_id)

    async def _join(self, room_id: str) -> None:
        result = await self._client.join(room_id)
        if isinstance(result, JoinError):
            log.warning("cannot join %s: %s", room_id, result.message)
