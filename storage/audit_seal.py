"""Free text in audit rows, sealed at rest with the storage keys (storage.encryption).

What a person, an agent or a device wrote into an audit row (a request's text, Modify feedback,
a refusal's reason, a push's or an outcome's detail, a read command, an agent's arguments and
outcome: the columns storage.schema marks SEALED) can hold a secret typed in clear. Such a row
keeps those columns NULL and their values, as the canonical JSON {column: value}, encrypted in
its one `sealed` column.

Why one sealed document per row rather than each column sealed in its own place: the clear
columns keep their type (TEXT, so SQL and older code see NULL, never bytes), one encryption
per row instead of two or three, and the row is sealed or not as a whole, so a reader has one
rule: `sealed` set, the values are in it; `sealed` NULL, the row was written before sealing
and its columns are read as they are (until `labbot db reseal` seals it).

The chain (storage.audit_chain) hashes a row's plaintext content, never the sealed bytes:
sealing again under a new key (`reseal`) leaves every row hash as it was, and checking a row
needs it opened. Who, where, when and the hashes stay in clear: they are what the audit is
searched by, and none of them is typed text.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import sqlalchemy as sa

from base.errors import StorageError
from storage.encryption import StorageKeys
from storage.schema import AUDIT_TABLES, SEAL_COLUMN, SEALED
from workflow.hashing import canonical_json

NO_KEYS = (
    "audit rows are sealed with the storage keys, and none were given: set LABBOT_STORAGE_KEY "
    "(or put LABBOT_DATA_DIR's storage.key back)"
)
NOT_SEALED_TEXT = "a sealed audit row does not hold the text of its sealed columns"
# a sealed row's text in a listing when no key of LABBOT_STORAGE_KEY opens it
UNOPENED = "(sealed: no key of LABBOT_STORAGE_KEY opens it; `labbot audit verify` names the row)"


def sealed_columns(table: sa.Table) -> tuple[str, ...]:
    """The names of `table`'s columns kept sealed (none: the table has no free text)."""
    return tuple(column.name for column in table.c if column.info.get(SEALED))


SEALED_TABLES = tuple(table for table in AUDIT_TABLES if sealed_columns(table))


def seal_row(
    table: sa.Table, content: Mapping[str, Any], keys: StorageKeys | None
) -> dict[str, Any]:
    """`content` as it is stored: its sealed columns NULL, their values in SEAL_COLUMN."""
    names = sealed_columns(table)
    if not names:
        return dict(content)
    if keys is None:  # never in clear: the caller was not given the keys
        raise StorageError(NO_KEYS)
    texts = {name: content.get(name) for name in names}
    return {**content, **dict.fromkeys(names), SEAL_COLUMN: keys.seal(canonical_json(texts))}


def open_row(table: sa.Table, row: Any, keys: StorageKeys | None) -> dict[str, Any]:
    """A stored row (`sa.Row` or mapping) as it was written: sealed columns opened, without
    SEAL_COLUMN. Raises StorageError when it cannot be opened (no key, or not the key)."""
    data = dict(row._mapping if hasattr(row, "_mapping") else row)
    token = data.pop(SEAL_COLUMN, None)
    if token is None:  # written before sealing: read as it is
        return data
    if keys is None:
        raise StorageError(NO_KEYS)
    try:
        texts = json.loads(keys.open(token))
    except ValueError:  # sealed with the key, and not by labbot
        raise StorageError(NOT_SEALED_TEXT) from None
    if not isinstance(texts, dict) or set(texts) != set(sealed_columns(table)):
        raise StorageError(NOT_SEALED_TEXT)
    return {**data, **texts}


def open_listed(table: sa.Table, row: Any, keys: StorageKeys | None) -> dict[str, Any]:
    """A row as a listing shows it: opened, or, when none of `keys` opens it (a key removed
    too soon), its sealed columns saying so, so one such row does not hide the rest of the
    audit (`verify` names it). No keys at all: StorageError, as `open_row`."""
    try:
        return open_row(table, row, keys)
    except StorageError:
        if keys is None:
            raise
        data = dict(row._mapping if hasattr(row, "_mapping") else row)
        data.pop(SEAL_COLUMN, None)
        return {**data, **dict.fromkeys(sealed_columns(table), UNOPENED)}


def text_beside_seal(table: sa.Table, row: Any) -> bool:
    """Whether a sealed row also holds text in a sealed column's clear place: labbot never
    writes that, so it is an edit (readers show the sealed text; `verify` names the row)."""
    data = row._mapping if hasattr(row, "_mapping") else row
    if data.get(SEAL_COLUMN) is None:
        return False
    return any(data.get(name) is not None for name in sealed_columns(table))


def reseal_audit(conn: sa.Connection, keys: StorageKeys) -> dict[str, int]:
    """`labbot db reseal` for the audit: sealed rows sealed again under the first key, rows
    from before sealing sealed now; no row's content changes, so no row hash does.
    {table: rows}."""
    return {table.name: reseal_table(conn, table, keys) for table in SEALED_TABLES}


def reseal_table(conn: sa.Connection, table: sa.Table, keys: StorageKeys) -> int:
    """`table`'s rows (sealed columns marked SEALED, a primary key `id`) sealed again under
    the first key, or sealed now when written before sealing; rows resealed."""
    names = sealed_columns(table)
    query = sa.select(table.c.id, table.c[SEAL_COLUMN], *(table.c[name] for name in names))
    rows = conn.execute(query).all()
    for row in rows:
        token = row._mapping[table.c[SEAL_COLUMN]]
        if token is not None:
            values: dict[str, Any] = {SEAL_COLUMN: keys.reseal(token)}
        else:
            values = seal_row(table, dict(row._mapping), keys)
            del values["id"]
        conn.execute(sa.update(table).where(table.c.id == row.id).values(values))
    return len(rows)
