"""The rooms labbot was invited to as direct chats, kept in the store dir so a restart still
knows them (the flag is only in the invite; the approval policy refuses direct messages that no
rule covers)."""

from __future__ import annotations

import json
import logging
from pathlib import Path

log = logging.getLogger(__name__)

FILE_NAME = "direct_rooms.json"


class DirectRooms:
    def __init__(self, store_dir: Path) -> None:
        self.path = store_dir / FILE_NAME
        self._rooms = self._load()

    def __contains__(self, room_id: object) -> bool:
        return room_id in self._rooms

    def add(self, room_id: str) -> None:
        if room_id in self._rooms:
            return
        self._rooms.add(room_id)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(json.dumps(sorted(self._rooms)), encoding="utf-8")

    def _load(self) -> set[str]:
        try:
            rooms = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return set()
        except (OSError, ValueError) as exc:
            log.warning(
                "cannot read %s (%s); direct rooms are learnt from new invites", self.path, exc
            )
            return set()
        return {room for room in rooms if isinstance(room, str)}
