"""`labbot db reseal`: everything sealed again under the first storage key (the end of a key
rotation), and what was written before sealing (an older release's checkpoints, config backups,
audit rows and saved templates in clear) sealed now. One transaction: all rows or none."""

from __future__ import annotations

import sqlalchemy as sa

from storage.audit_seal import reseal_audit, reseal_table
from storage.encryption import CIPHER_NAME, StorageKeys
from storage.schema import (
    checkpoint_blobs,
    checkpoint_writes,
    checkpoints,
    config_backups,
    saved_templates,
)

__all__ = ["reseal_all"]

SEALED_TYPE = "+" + CIPHER_NAME  # EncryptedSerializer: "msgpack+fernet"; no "+": in clear
TYPED_PAYLOADS = (
    (checkpoints, "checkpoint"),
    (checkpoint_blobs, "blob"),
    (checkpoint_writes, "blob"),
)


def reseal_all(conn: sa.Connection, keys: StorageKeys) -> dict[str, int]:
    """{table: rows sealed again or for the first time}."""
    counts = {
        table.name: _reseal_typed(conn, table, column, keys) for table, column in TYPED_PAYLOADS
    }
    counts[config_backups.name] = _reseal_backups(conn, keys)
    counts[saved_templates.name] = reseal_table(conn, saved_templates, keys)
    return counts | reseal_audit(conn, keys)


def _reseal_typed(conn: sa.Connection, table: sa.Table, column: str, keys: StorageKeys) -> int:
    """A checkpointer table's values: sealed ones under the first key, clear ones sealed."""
    key_columns = list(table.primary_key.columns)
    query = sa.select(*key_columns, table.c.type, table.c[column])
    done = 0
    for row in conn.execute(query).all():
        kind, payload = row.type, row._mapping[table.c[column]]
        if payload is None or kind == "empty":  # no value: nothing to seal
            continue
        if kind.endswith(SEALED_TYPE):
            new_kind, new_payload = kind, keys.reseal(payload)
        else:
            new_kind, new_payload = kind + SEALED_TYPE, keys.seal(payload)
        where = [c == row._mapping[c] for c in key_columns]
        conn.execute(sa.update(table).where(*where).values({"type": new_kind, column: new_payload}))
        done += 1
    return done


def _reseal_backups(conn: sa.Connection, keys: StorageKeys) -> int:
    table = config_backups.c
    rows = conn.execute(
        sa.select(table.change_id, table.device, table.stage, table.config, table.sealed)
    ).all()
    for row in rows:
        sealed = (
            keys.reseal(row.sealed) if row.sealed is not None else keys.seal(row.config.encode())
        )
        conn.execute(
            sa.update(config_backups)
            .where(
                table.change_id == row.change_id,
                table.device == row.device,
                table.stage == row.stage,
            )
            .values(sealed=sealed, config=None)
        )
    return len(rows)
