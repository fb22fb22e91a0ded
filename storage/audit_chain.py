"""The hash chain over every audit row: appending a link, and checking the whole chain.

`seq` numbers audit rows across all audit tables (1, 2, 3, ...); each row stores the `row_hash`
of the row before it as `prev_hash`, and its own `row_hash` = sha256 over its table name, seq,
time, prev_hash and content. Editing, deleting or inserting a row breaks the chain at that row.
Appends must run in `storage.db.serialized_transaction(engine, CHAIN_LOCK_KEY)`.
"""

from __future__ import annotations

import hashlib
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from base.vocabulary import as_utc, utc_now
from storage.audit_records import ChainReport
from storage.schema import AUDIT_TABLES, CHAIN_COLUMNS
from workflow.hashing import canonical_json

GENESIS = "0" * 64
CHAIN_LOCK_KEY = 0x1AB_B07_002


def row_hash(table: str, seq: int, at: datetime, prev_hash: str, content: dict[str, Any]) -> str:
    document = {
        "table": table,
        "seq": seq,
        "at": as_utc(at).isoformat(timespec="microseconds"),
        "prev_hash": prev_hash,
        "content": content,
    }
    return hashlib.sha256(canonical_json(document)).hexdigest()


async def append(conn: AsyncConnection, table: sa.Table, content: dict[str, Any]) -> dict[str, Any]:
    """Insert `content` as the chain's next row; returns the full row as written."""
    seq, prev_hash = await _head(conn)
    at = utc_now()
    row = {
        **content,
        "seq": seq + 1,
        "at": at,
        "prev_hash": prev_hash,
        "row_hash": row_hash(table.name, seq + 1, at, prev_hash, content),
    }
    await conn.execute(sa.insert(table), row)
    return row


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


def content_of(table: sa.Table, row: sa.Row[Any]) -> dict[str, Any]:
    return {c.name: getattr(row, c.name) for c in table.c if c.name not in CHAIN_COLUMNS}


async def verify(conn: AsyncConnection) -> ChainReport:
    """Walk every audit row in seq order; name the first row where the chain breaks."""
    rows: list[tuple[sa.Table, sa.Row[Any]]] = []
    for table in AUDIT_TABLES:
        rows += [(table, r) for r in await conn.execute(sa.select(table))]
    rows.sort(key=lambda item: item[1].seq)
    prev_hash = GENESIS
    for expected_seq, (table, row) in enumerate(rows, start=1):
        problem = _problem(table, row, expected_seq, prev_hash)
        if problem:
            return ChainReport(
                ok=False, rows=len(rows), first_broken=f"{table.name}#{row.id}: {problem}"
            )
        prev_hash = row.row_hash
    return ChainReport(ok=True, rows=len(rows), first_broken=None)


def _problem(table: sa.Table, row: sa.Row[Any], expected_seq: int, prev_hash: str) -> str | None:
    if row.seq != expected_seq:
        return f"seq {row.seq} where {expected_seq} was expected: rows before it were deleted"
    if row.prev_hash != prev_hash:
        return "prev_hash does not match the row before it: the chain was altered before this row"
    if row_hash(table.name, row.seq, row.at, row.prev_hash, content_of(table, row)) != row.row_hash:
        return "content does not match its hash: the row was edited after it was written"
    return None
