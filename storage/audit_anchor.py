"""The audit chain's head kept outside the database, so truncation and rewriting show.

After every append the head (row count and last row hash) is written to a small JSON file
(LABBOT_AUDIT_HEAD_FILE, else `audit-head.json` under LABBOT_DATA_DIR), atomically and only
forward; the bot also posts it to the audit channel when a change ends. `labbot audit verify`
checks that the database still has that row with that hash: deleting the last rows leaves too
few, editing and recomputing the chain (without the HMAC key, or with it) changes the hash.
A head from the chat post can be given instead (`--head 42:ab12…`).
"""

from __future__ import annotations

import json
import os
import re
import threading
from pathlib import Path

from base.errors import ConfigError, StorageError
from storage.audit_chain import ChainHead

_HEAD_TEXT = re.compile(r"^(\d+):([0-9a-f]{64})$")


def parse_head(text: str) -> ChainHead:
    """`ROWS:HASH` as the bot posts it."""
    match = _HEAD_TEXT.match(text.strip())
    if not match:
        raise ConfigError(f"--head: {text!r} is not ROWS:HASH (64 hex digits), as the bot posts it")
    return ChainHead(int(match.group(1)), match.group(2))


def head_text(head: ChainHead) -> str:
    return f"{head.rows}:{head.row_hash}"


class HeadFile:
    """The head file: `write` moves it forward only; `read` is None while none was written."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()

    def read(self) -> ChainHead | None:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            return ChainHead(int(data["rows"]), str(data["row_hash"]))
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise StorageError(
                f"audit head file {self.path} is unreadable ({exc}); restore it from a backup "
                "or a head the bot posted"
            ) from None

    def write(self, head: ChainHead) -> None:
        with self._lock:
            current = self._current_rows()
            if head.rows <= current:
                return  # another writer got further already
            self.path.parent.mkdir(parents=True, exist_ok=True)
            temporary = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
            temporary.write_text(json.dumps({"rows": head.rows, "row_hash": head.row_hash}))
            os.replace(temporary, self.path)

    def _current_rows(self) -> int:
        try:
            found = self.read()
        except StorageError:
            return 0
        return found.rows if found else 0
