"""Whether the storage keys open what this database sealed last (a wrong key refused at start).

A `labbot serve` given a wrong LABBOT_STORAGE_KEY would seal new rows with it beside rows it
cannot open, and the audit would later read as broken. So before serving, the newest sealed
value of every sealed table must open with one of the keys. Tables or columns a database at an
older schema lacks are passed over (nothing in them is sealed yet).
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from base.errors import StorageError
from storage.audit_seal import SEALED_TABLES
from storage.encryption import CIPHER_NAME, StorageKeys
from storage.schema import (
    SEAL_COLUMN,
    checkpoint_writes,
    checkpoints,
    config_backups,
    saved_templates,
)

__all__ = ["unopened_table"]

SEALED_TYPE = f"%+{CIPHER_NAME}"  # a checkpointer value's type when sealed: "msgpack+fernet"


def _newest_sealed(conn: sa.Connection) -> list[tuple[str, sa.Select[Any]]]:
    """(table, the query of its newest sealed value), for each sealed table this database has."""
    found = sa.inspect(conn)
    tables = set(found.get_table_names())

    def has(table: sa.Table, column: str) -> bool:
        return table.name in tables and column in {c["name"] for c in found.get_columns(table.name)}

    queries: list[tuple[sa.Table, sa.Select[Any]]] = []
    for table, payload, newest in (
        (checkpoints, "checkpoint", checkpoints.c.checkpoint_id),
        (checkpoint_writes, "blob", checkpoint_writes.c.checkpoint_id),
    ):
        sealed = table.c.type.like(SEALED_TYPE)
        queries.append((table, sa.select(table.c[payload]).where(sealed).order_by(newest.desc())))
    rows = (
        (config_backups, config_backups.c.captured_at),
        *((table, table.c.seq) for table in SEALED_TABLES),
        (saved_templates, saved_templates.c.id),
    )
    for table, newest in rows:
        if has(table, SEAL_COLUMN):
            seal = table.c[SEAL_COLUMN]
            queries.append(
                (table, sa.select(seal).where(seal.is_not(None)).order_by(newest.desc()))
            )
    return [(table.name, query.limit(1)) for table, query in queries if table.name in tables]


def unopened_table(conn: sa.Connection, keys: StorageKeys) -> str | None:
    """The first table whose newest sealed value none of `keys` opens, or None."""
    for name, query in _newest_sealed(conn):
        token = conn.scalar(query)
        if token is None:
            continue
        try:
            keys.open(token)
        except StorageError:
            return name
    return None
