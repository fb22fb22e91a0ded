"""Which rooms labbot serves and who is in them: the allow-list, invites, direct chats, names.

- `LABBOT_MATRIX_ROOMS` holds room ids or aliases (resolved once at start); empty = any room.
- Invites to allowed rooms are joined, others declined; a room invited to as a direct chat is
  remembered (`DirectRooms`), since only the invite says so.
"""

from __future__ import annotations

import logging
from pathlib import Path

from nio import AsyncClient, JoinError, RoomResolveAliasResponse, SyncResponse

from adapters.chat import Actor
from adapters.matrix import inbound, texts
from adapters.matrix.direct import DirectRooms

log = logging.getLogger(__name__)


class Rooms:
    def __init__(self, client: AsyncClient, wanted: tuple[str, ...], store_dir: Path) -> None:
        self._client = client
        self._wanted = wanted  # room ids or aliases; empty = any room
        self._allowed: set[str] | None = None  # resolved ids; None = any room
        self._direct = DirectRooms(store_dir)

    async def resolve(self) -> None:
        """Turn the configured aliases into room ids (an unknown alias is logged and skipped)."""
        if not self._wanted:
            return
        allowed = set()
        for room in self._wanted:
            if not room.startswith("#"):
                allowed.add(room)
                continue
            response = await self._client.room_resolve_alias(room)
            if isinstance(response, RoomResolveAliasResponse):
                allowed.add(response.room_id)
            else:
                log.warning("LABBOT_MATRIX_ROOMS: cannot resolve %s (%s)", room, response)
        self._allowed = allowed

    def is_allowed(self, room_id: str) -> bool:
        return self._allowed is None or room_id in self._allowed

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

    def actor(self, room_id: str, user_id: str) -> Actor:
        """The person as the room names them (their id when the room does not know them)."""
        room = self._client.rooms.get(room_id)
        name = room.user_name(user_id) if room is not None else None
        return Actor(user_id, name or user_id)

    async def _join(self, room_id: str) -> None:
        result = await self._client.join(room_id)
        if isinstance(result, JoinError):
            log.warning("cannot join %s: %s", room_id, result.message)
