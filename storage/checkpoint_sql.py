"""The checkpointer's SQL, as plain functions over one sync-facing `Connection`.

SQLAlchemySaver runs each operation whole, in one call: inside `AsyncConnection.run_sync` on
PostgreSQL (one greenlet switch per operation, not per statement), and in the saver's worker
thread on a SQLite file (one thread hop per operation instead of four per statement through
aiosqlite). `put` and `put_writes` run in autocommit mode on PostgreSQL, as the official saver
does: their statements are ordered and idempotent, so BEGIN/COMMIT round trips buy nothing.
"""

from __future__ import annotations

import json
from typing import Any

import sqlalchemy as sa
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import CheckpointTuple, get_checkpoint_id
from langgraph.checkpoint.serde.base import SerializerProtocol
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.dialects.postgresql import JSONB

from storage.checkpoint_rows import LoadedHead, group_heads
from storage.schema import checkpoint_blobs as BLOBS
from storage.schema import checkpoint_writes as WRITES
from storage.schema import checkpoints as CHECKPOINTS

EXTRAS_CHUNK = 100  # checkpoints whose blobs and writes are fetched in one query
HEAD_COLUMNS = (
    CHECKPOINTS.c.thread_id,
    CHECKPOINTS.c.checkpoint_ns,
    CHECKPOINTS.c.checkpoint_id,
    CHECKPOINTS.c.parent_checkpoint_id,
    CHECKPOINTS.c.type,
    CHECKPOINTS.c.checkpoint,
    CHECKPOINTS.c["metadata"],
)
_WRITE_KEY = ["thread_id", "checkpoint_ns", "checkpoint_id", "task_id", "idx"]


class CheckpointSQL:
    def __init__(self, dialect: str, serde: SerializerProtocol) -> None:
        self.sqlite = dialect == "sqlite"
        self.serde = serde
        self.insert = insert = sqlite.insert if self.sqlite else postgresql.insert
        # built once, so SQLAlchemy compiles each of them once
        self._insert_blobs = insert(BLOBS).on_conflict_do_nothing()
        upsert = insert(CHECKPOINTS)
        self._upsert_checkpoint = upsert.on_conflict_do_update(
            index_elements=["thread_id", "checkpoint_ns", "checkpoint_id"],
            set_={c: upsert.excluded[c] for c in ("type", "checkpoint", "metadata", "run_id")},
        )
        self._insert_writes = insert(WRITES).on_conflict_do_nothing()
        upsert_w = insert(WRITES)
        self._upsert_writes = upsert_w.on_conflict_do_update(
            index_elements=_WRITE_KEY,
            set_={c: upsert_w.excluded[c] for c in ("channel", "type", "blob", "task_path")},
        )

    # --- queries --------------------------------------------------------------------------------

    def tuple_query(self, config: RunnableConfig) -> sa.Select[Any]:
        conf = config["configurable"]
        query = sa.select(*HEAD_COLUMNS).where(
            CHECKPOINTS.c.thread_id == conf["thread_id"],
            CHECKPOINTS.c.checkpoint_ns == conf.get("checkpoint_ns", ""),
        )
        if checkpoint_id := get_checkpoint_id(config):
            return query.where(CHECKPOINTS.c.checkpoint_id == checkpoint_id)
        return query.order_by(CHECKPOINTS.c.checkpoint_id.desc()).limit(1)

    def list_query(
        self,
        config: RunnableConfig | None,
        filter: dict[str, Any] | None,
        before: RunnableConfig | None,
        limit: int | None,
    ) -> sa.Select[Any]:
        where: list[sa.ColumnElement[bool]] = []
        if config:
            conf = config["configurable"]
            where.append(CHECKPOINTS.c.thread_id == conf["thread_id"])
            if (ns := conf.get("checkpoint_ns")) is not None:
                where.append(CHECKPOINTS.c.checkpoint_ns == ns)
            if checkpoint_id := get_checkpoint_id(config):
                where.append(CHECKPOINTS.c.checkpoint_id == checkpoint_id)
        if filter:
            where += self.metadata_filter(filter)
        if before is not None:
            where.append(CHECKPOINTS.c.checkpoint_id < get_checkpoint_id(before))
        query = sa.select(*HEAD_COLUMNS).where(*where)
        query = query.order_by(CHECKPOINTS.c.checkpoint_id.desc())
        return query if limit is None else query.limit(int(limit))

    def metadata_filter(self, filter: dict[str, Any]) -> list[sa.ColumnElement[bool]]:
        """Metadata equality as bound parameters only (keys and values never become SQL)."""
        column = CHECKPOINTS.c["metadata"]
        if not self.sqlite:
            return [sa.type_coerce(column, JSONB).contains(filter)]
        where: list[sa.ColumnElement[bool]] = []
        for key, value in filter.items():
            # json_each rather than a JSON path: any key works, even one with quotes in it
            entry = sa.func.json_each(column).table_valued("key", "value")
            wanted = sa.func.json_extract(sa.bindparam(None, json.dumps(value)), "$")
            where.append(sa.exists().where(entry.c.key == key, entry.c.value == wanted))
        return where

    # --- reads ----------------------------------------------------------------------------------

    def read(self, conn: sa.Connection, query: sa.Select[Any]) -> list[CheckpointTuple]:
        heads = [self._decode_head(row) for row in conn.execute(query)]
        tuples: list[CheckpointTuple] = []
        for start in range(0, len(heads), EXTRAS_CHUNK):
            tuples += self._complete(conn, heads[start : start + EXTRAS_CHUNK])
        return tuples

    def _decode_head(self, row: Any) -> LoadedHead:
        return LoadedHead(
            thread_id=row.thread_id,
            checkpoint_ns=row.checkpoint_ns,
            checkpoint_id=row.checkpoint_id,
            parent_checkpoint_id=row.parent_checkpoint_id,
            body=self.serde.loads_typed((row.type, row.checkpoint)),
            metadata=row.metadata,
        )

    def _complete(self, conn: sa.Connection, heads: list[LoadedHead]) -> list[CheckpointTuple]:
        """Fetch the blobs and pending writes of `heads` in one round trip; build the tuples."""
        blobs: dict[tuple[str, str, str, str], tuple[str, Any]] = {}
        by_id = {(h.thread_id, h.checkpoint_ns, h.checkpoint_id): h for h in heads}
        for r in conn.execute(_extras_query(heads)):
            if r.kind == "b":
                blobs[(r.thread_id, r.checkpoint_ns, r.channel, r.version)] = (r.type, r.blob)
            else:
                head = by_id[(r.thread_id, r.checkpoint_ns, r.checkpoint_id)]
                head.writes.append((r.task_path, r.task_id, r.idx, r.channel, r.type, r.blob))
        return [head.to_tuple(self.serde, blobs) for head in heads]

    # --- writes ---------------------------------------------------------------------------------

    def put(
        self, conn: sa.Connection, blob_rows: list[dict[str, Any]], row: dict[str, Any]
    ) -> None:
        """Blobs first, then the checkpoint that points at them: even outside a transaction a
        checkpoint never refers to a missing blob (a crash in between leaves an unused blob)."""
        if blob_rows:
            conn.execute(self._insert_blobs, blob_rows)
        conn.execute(self._upsert_checkpoint, row)

    def put_writes(self, conn: sa.Connection, rows: list[dict[str, Any]], special: bool) -> None:
        """Special writes (error, interrupt, ...) replace; ordinary ones are insert-or-ignore,
        so writing a task's writes again (a retry) is harmless."""
        conn.execute(self._upsert_writes if special else self._insert_writes, rows)

    def delete_thread(self, conn: sa.Connection, thread_id: str) -> None:
        for table in (CHECKPOINTS, BLOBS, WRITES):
            conn.execute(sa.delete(table).where(table.c.thread_id == thread_id))

    def delete_for_runs(self, conn: sa.Connection, run_ids: list[str]) -> None:
        """Delete the checkpoints the runs created, with their writes (blobs stay shared)."""
        doomed = sa.select(
            CHECKPOINTS.c.thread_id, CHECKPOINTS.c.checkpoint_ns, CHECKPOINTS.c.checkpoint_id
        ).where(CHECKPOINTS.c.run_id.in_(run_ids))
        keys = [tuple(r) for r in conn.execute(doomed)]
        if keys:
            key = sa.tuple_(WRITES.c.thread_id, WRITES.c.checkpoint_ns, WRITES.c.checkpoint_id)
            conn.execute(sa.delete(WRITES).where(key.in_(keys)))
        conn.execute(sa.delete(CHECKPOINTS).where(CHECKPOINTS.c.run_id.in_(run_ids)))

    def copy_thread(self, conn: sa.Connection, source: str, target: str) -> None:
        """Copy every checkpoint, blob and write of a thread (the whole parent chain)."""
        for table in (CHECKPOINTS, BLOBS, WRITES):
            others = [c for c in table.c if c.name != "thread_id"]
            rows = sa.select(sa.literal(target, sa.Text), *others)
            rows = rows.where(table.c.thread_id == source)
            names = ["thread_id", *[c.name for c in others]]
            conn.execute(self.insert(table).from_select(names, rows).on_conflict_do_nothing())


def _extras_query(heads: list[LoadedHead]) -> sa.Select[Any] | sa.CompoundSelect[Any]:
    """Pending writes of `heads`, and the blobs their channel versions point at, in one query."""
    blob_where, write_where = [], []
    for (thread_id, ns), (keys, ids) in group_heads(heads).items():
        if keys:
            pair = sa.tuple_(BLOBS.c.channel, BLOBS.c.version)
            same_ns = (BLOBS.c.thread_id == thread_id, BLOBS.c.checkpoint_ns == ns)
            blob_where.append(sa.and_(*same_ns, pair.in_(sorted(keys))))
        write_where.append(
            sa.and_(
                WRITES.c.thread_id == thread_id,
                WRITES.c.checkpoint_ns == ns,
                WRITES.c.checkpoint_id.in_(ids),
            )
        )
    null_text = sa.cast(sa.null(), sa.Text)
    writes = sa.select(
        sa.literal_column("'w'").label("kind"),
        WRITES.c.thread_id,
        WRITES.c.checkpoint_ns,
        WRITES.c.channel,
        null_text.label("version"),
        WRITES.c.checkpoint_id,
        WRITES.c.task_id,
        WRITES.c.task_path,
        WRITES.c.idx,
        WRITES.c.type,
        WRITES.c.blob,
    ).where(sa.or_(*write_where))
    if not blob_where:
        return writes
    blobs = sa.select(
        sa.literal_column("'b'"),
        BLOBS.c.thread_id,
        BLOBS.c.checkpoint_ns,
        BLOBS.c.channel,
        BLOBS.c.version,
        null_text,
        null_text,
        null_text,
        sa.cast(sa.null(), sa.Integer),
        BLOBS.c.type,
        BLOBS.c.blob,
    ).where(sa.or_(*blob_where))
    return sa.union_all(writes, blobs)
