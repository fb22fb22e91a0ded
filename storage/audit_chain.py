"""The hash chain over every audit row: appending a link, and checking the whole chain.

`seq` numbers audit rows across all audit tables (1, 2, 3, ...); each row stores the `row_hash`
of the row before it as `prev_hash`, and its own `row_hash` over its table name, seq, time,
prev_hash and content: an HMAC-SHA256 keyed with LABBOT_AUDIT_KEY (`hash_scheme`
"hmac-sha256"), so whoever can write the database but lacks the key cannot recompute the chain
after an edit; rows from before the key are plain sha256, and none may follow a keyed row.
Editing, deleting or inserting a row breaks the chain at that row; deleting the last rows is
caught against the chain head anchored outside the database (storage/audit_head.py).
Appends run in `AuditChain.transaction`, serialized on CHAIN_LOCK_KEY.

A row is hashed over its plaintext and stored with its free text sealed (storage.audit_seal):
checking a row opens it first, and sealing it again under another key changes no hash.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from base.errors import StorageError
from base.vocabulary import as_utc, utc_now
from storage.audit_records import BreakKind, ChainBreak, ChainReport
from storage.audit_seal import open_row, seal_row, text_beside_seal
from storage.db import serialized_transaction
from storage.encryption import StorageKeys
from storage.schema import AUDIT_TABLES, CHAIN_COLUMNS, LATER, SEAL_COLUMN
from workflow.hashing import canonical_json

__all__ = ["AuditChain", "ChainHead"]

GENESIS = "0" * 64
CHAIN_LOCK_KEY = 0x1AB_B07_002
KEYED, PLAIN = "hmac-sha256", "sha256"


@dataclass(frozen=True)
class ChainHead:
    """The chain's last row: how many rows there are and that row's hash."""

    rows: int
    row_hash: str


def row_hash(
    table: str,
    seq: int,
    at: datetime,
    prev_hash: str,
    content: dict[str, Any],
    key: bytes | None = None,
) -> str:
    """HMAC-SHA256 with `key`, plain sha256 without (rows written before the key)."""
    document = canonical_json(
        {
            "table": table,
            "seq": seq,
            "at": as_utc(at).isoformat(timespec="microseconds"),
            "prev_hash": prev_hash,
            "content": content,
        }
    )
    if key is None:
        return hashlib.sha256(document).hexdigest()
    return hmac.new(key, document, hashlib.sha256).hexdigest()


@dataclass
class ChainWriter:
    """The audit chain inside one serialized transaction: `append` links rows, `conn` reads."""

    conn: AsyncConnection
    key: bytes | None
    storage_keys: StorageKeys | None
    last: ChainHead | None = None
    last_table: str = ""

    async def append(self, table: sa.Table, content: dict[str, Any]) -> dict[str, Any]:
        """Insert `content` as the chain's next row, its free text sealed; returns the full row
        as written, in clear. The head is read once per transaction: nobody else appends while
        it holds the write lock."""
        seq, prev_hash = (
            (self.last.rows, self.last.row_hash) if self.last else await _head(self.conn)
        )
        at = utc_now()
        digest = row_hash(table.name, seq + 1, at, prev_hash, hashed(table, content), self.key)
        row = {
            **content,
            "seq": seq + 1,
            "at": at,
            "prev_hash": prev_hash,
            "row_hash": digest,
            "hash_scheme": PLAIN if self.key is None else KEYED,
        }
        await self.conn.execute(sa.insert(table), seal_row(table, row, self.storage_keys))
        self.last, self.last_table = ChainHead(seq + 1, digest), table.name
        return row


HeadListener = Callable[[ChainHead, str], Awaitable[None]]


@dataclass(frozen=True)
class AuditChain:
    """How rows are linked and kept: the HMAC `key` (None: plain sha256, as before the key),
    who hears of each new head (`on_head(head, table)`, after the commit: the anchor) and the
    `storage_keys` free text is sealed with (None: a row with free text is neither written
    nor opened, StorageError)."""

    key: bytes | None = None
    on_head: HeadListener | None = None
    storage_keys: StorageKeys | None = None

    @asynccontextmanager
    async def transaction(self, engine: AsyncEngine) -> AsyncIterator[ChainWriter]:
        """A serialized transaction appending to the chain; the new head is announced after."""
        async with serialized_transaction(engine, CHAIN_LOCK_KEY) as conn:
            writer = ChainWriter(conn, self.key, self.storage_keys)
            yield writer
        if writer.last is not None and self.on_head is not None:
            await self.on_head(writer.last, writer.last_table)


async def _head(conn: AsyncConnection) -> tuple[int, str]:
    """(seq, row_hash) of the chain's last row, or (0, GENESIS) for an empty chain."""
    lasts = [
        sa.select(t.c.seq, t.c.row_hash).order_by(t.c.seq.desc()).limit(1).subquery().select()
        for t in AUDIT_TABLES
    ]
    found = (await conn.execute(sa.union_all(*lasts))).all()
    if not found:
        return 0, GENESIS
    seq, digest = max(found, key=lambda r: r.seq)
    return int(seq), str(digest)


def content_of(table: sa.Table, row: Mapping[str, Any]) -> dict[str, Any]:
    """What the hash of `row` (opened: storage.audit_seal.open_row) covers (see `hashed`)."""
    kept = CHAIN_COLUMNS | {SEAL_COLUMN}
    content = {c.name: row[c.name] for c in table.c if c.name not in kept}
    return hashed(table, content)


def hashed(table: sa.Table, content: dict[str, Any]) -> dict[str, Any]:
    """`content` without the columns added later (storage.schema.LATER) that it leaves empty:
    rows written before those columns existed keep their hash."""
    return {
        name: value
        for name, value in content.items()
        if value is not None or not table.c[name].info.get(LATER)
    }


async def verify(
    conn: AsyncConnection,
    key: bytes | None,
    anchor: ChainHead | None = None,
    storage_keys: StorageKeys | None = None,
) -> ChainReport:
    """Walk every audit row in seq order, opening sealed ones with `storage_keys`; name the
    first row where the chain breaks (or that cannot be opened), then compare the chain with
    the `anchor` kept outside the database (truncation, rewriting)."""
    rows: list[tuple[sa.Table, sa.Row[Any]]] = []
    for table in AUDIT_TABLES:
        rows += [(table, r) for r in await conn.execute(sa.select(table))]
    rows.sort(key=lambda item: item[1].seq)
    prev_hash, keyed = GENESIS, False
    for expected_seq, (table, row) in enumerate(rows, start=1):
        problem = _problem(table, row, expected_seq, prev_hash, key, keyed, storage_keys)
        if problem:
            found = ChainBreak(problem, table.name, row.id, seq=row.seq, expected=expected_seq)
            return ChainReport(ok=False, rows=len(rows), first_broken=found)
        prev_hash, keyed = row.row_hash, keyed or row.hash_scheme == KEYED
    broken = _against_anchor([row.row_hash for _, row in rows], anchor)
    return ChainReport(ok=broken is None, rows=len(rows), first_broken=broken, head=prev_hash)


def _against_anchor(hashes: list[str], anchor: ChainHead | None) -> ChainBreak | None:
    if anchor is None or anchor.rows == 0:
        return None
    if len(hashes) < anchor.rows:
        return ChainBreak("truncated", seq=len(hashes), expected=anchor.rows)
    if hashes[anchor.rows - 1] != anchor.row_hash:
        return ChainBreak("rewritten", expected=anchor.rows, anchored_hash=anchor.row_hash)
    return None


def _problem(
    table: sa.Table,
    row: sa.Row[Any],
    expected_seq: int,
    prev_hash: str,
    key: bytes | None,
    keyed: bool,
    storage_keys: StorageKeys | None,
) -> BreakKind | None:
    if row.seq != expected_seq:
        return "seq_gap"
    if row.prev_hash != prev_hash:
        return "prev_hash"
    if row.hash_scheme == KEYED and key is None:
        return "no_key"
    if row.hash_scheme != KEYED and keyed:
        return "unkeyed_after_keyed"
    row_key = key if row.hash_scheme == KEYED else None
    try:
        content = content_of(table, open_row(table, row, storage_keys))
    except StorageError:
        return "sealed"
    if text_beside_seal(table, row):
        return "content"
    if row_hash(table.name, row.seq, row.at, row.prev_hash, content, row_key) != row.row_hash:
        return "content"
    return None
