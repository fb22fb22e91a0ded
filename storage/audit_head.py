"""The audit chain's head kept outside the database, so truncation and rewriting show.

After every append the head (row count and last row hash) is written to a small JSON file
(LABBOT_AUDIT_HEAD_FILE, else `audit-head.json` under LABBOT_DATA_DIR), atomically and only
forward; the bot also posts it to the audit channel when a change ends. `labbot audit verify`
checks that the database still has that row with that hash: deleting the last rows leaves too
few, editing and recomputing the chain (without the HMAC key, or with it) changes the hash.
A head from the chat post can be given instead (`--head 42:ab12…`).

The file also names the database it anchors (the id the database was created with,
`database_identity`, and where it was): a head is only moved forward by the database it
anchors, and a head of another database is told as such, never as rows deleted from this one.
"""

from __future__ import annotations

import json
import os
import re
import threading
from dataclasses import dataclass
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from base.errors import ConfigError, StorageError
from storage.audit_chain import ChainHead
from storage.schema import database_identity

__all__ = ["Anchor", "DatabaseName", "HeadFile", "database_name", "head_text", "parse_head"]

_HEAD_TEXT = re.compile(r"^(\d+):([0-9a-f]{64})$")


def parse_head(text: str) -> ChainHead:
    """`ROWS:HASH` as the bot posts it."""
    match = _HEAD_TEXT.match(text.strip())
    if not match:
        raise ConfigError(f"--head: {text!r} is not ROWS:HASH (64 hex digits), as the bot posts it")
    return ChainHead(int(match.group(1)), match.group(2))


def head_text(head: ChainHead) -> str:
    return f"{head.rows}:{head.row_hash}"


@dataclass(frozen=True)
class DatabaseName:
    """Which database: the id it was created with, and where it was (a URL without password)."""

    id: str
    where: str = ""


@dataclass(frozen=True)
class Anchor:
    """A head kept outside the database, and the database it anchors (None: a head posted in
    chat, or a file written before databases had ids)."""

    head: ChainHead
    database: DatabaseName | None = None

    def anchors(self, database: DatabaseName) -> bool:
        return self.database is None or self.database.id == database.id


async def database_name(engine: AsyncEngine) -> DatabaseName:
    """The id this database was created with (storage/migrations 0009), and where it is."""
    async with engine.connect() as conn:
        found = (await conn.execute(sa.select(database_identity.c.id))).scalar()
    where = engine.url.render_as_string(hide_password=True)
    return DatabaseName(str(found or ""), where)


class HeadFile:
    """The head file: `write` moves it forward only, for the database it anchors; `read` is None
    while none was written."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()

    def read(self) -> Anchor | None:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            head = ChainHead(int(data["rows"]), str(data["row_hash"]))
            named = data.get("database")
            database = (
                DatabaseName(str(named["id"]), str(named.get("where", ""))) if named else None
            )
            return Anchor(head, database)
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise StorageError(
                f"audit head file {self.path} is unreadable ({exc}); restore it from a backup "
                "or a head the bot posted"
            ) from None

    def write(self, head: ChainHead, database: DatabaseName) -> bool:
        """Move the head forward; False (nothing written) when the file anchors another
        database: that one is re-anchored only on purpose (`replace`, `labbot audit anchor`)."""
        with self._lock:
            current = self._current()
            if current is not None and not current.anchors(database):
                return False
            if current is not None and head.rows <= current.head.rows:
                return True  # another writer got further already
            self._write(Anchor(head, database))
            return True

    def replace(self, anchor: Anchor) -> None:
        """Anchor this head whatever the file held (`labbot audit anchor`)."""
        with self._lock:
            self._write(anchor)

    def _write(self, anchor: Anchor) -> None:
        named = anchor.database
        document = {
            "rows": anchor.head.rows,
            "row_hash": anchor.head.row_hash,
            "database": {"id": named.id, "where": named.where} if named else None,
        }
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        temporary.write_text(json.dumps(document))
        os.replace(temporary, self.path)

    def _current(self) -> Anchor | None:
        try:
            return self.read()
        except StorageError:
            return None
