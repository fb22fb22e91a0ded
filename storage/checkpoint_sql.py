"""The checkpointer's SQL, as plain functions over one sync-facing `Connection`.

SQLAlchemySaver runs each operation whole, in one call: in the saver's worker thread on a SQLite
file (one thread hop per operation instead of four per statement through aiosqlite), inside
`AsyncConnection.run_sync` otherwise. Statements are built once and reused (building costs more
than running them). A read is one query (the checkpoints, their blobs and their writes, UNION
ALL). On PostgreSQL a put and a put of writes are one statement each too, and every value of a
read, put or write is passed as an array (one element per read, row or checkpoint), so they go to
storage.postgres_worker as SQL text compiled once (`*_statement`), which runs those of one kind
queued together as one statement, their arrays joined. On a SQLite file the worker threads send
them to sqlite3 straight, as SQL text compiled once too (`sqlite_driver`).
"""

from __future__ import annotations

import json
import sqlite3
from collections import namedtuple
from collections.abc import Hashable, Iterable
from typing import Any, NamedTuple

import sqlalchemy as sa
from langgraph.checkpoint.base import CheckpointTuple
from langgraph.checkpoint.serde.base import SerializerProtocol
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.dialects.postgresql.psycopg import PGDialect_psycopg
from sqlalchemy.dialects.sqlite.pysqlite import SQLiteDialect_pysqlite

from storage.checkpoint_rows import LoadedHead
from storage.db import json_text
from storage.postgres_arrays import as_arrays, unnest_insert
from storage.postgres_worker import Statement
from storage.schema import checkpoint_blobs as BLOBS
from storage.schema import checkpoint_writes as WRITES
from storage.schema import checkpoints as CHECKPOINTS


class ReadShape(NamedTuple):
    thread_id: bool
    ns: bool
    checkpoint_id: bool
    filter_keys: int
    before: bool
    limit: bool


_CHECKPOINT_DATA = ("type", "checkpoint", "blob_versions", "metadata", "run_id")
_CHECKPOINT_COLUMNS = tuple(c.name for c in CHECKPOINTS.c)
_BLOB_COLUMNS = ("thread_id", "checkpoint_ns", "channel", "version", "type", "blob")
_WRITE_COLUMNS = tuple(c.name for c in WRITES.c)
_PSYCOPG = PGDialect_psycopg()  # type: ignore[no-untyped-call]
_SQLITE = SQLiteDialect_pysqlite(paramstyle="named")
_ROW_TYPES: dict[tuple[str, ...], Any] = {}  # a namedtuple per column list of a read
_WRITE_KEY = ["thread_id", "checkpoint_ns", "checkpoint_id", "task_id", "idx"]
# what a read on PostgreSQL is given, as arrays (one element per read merged, see `_given`)
_GIVEN_TYPES: dict[str, Any] = {
    "thread_id": sa.Text, "ns": sa.Text, "checkpoint_id": sa.Text, "filter": JSONB,
    "before": sa.Text, "limit": sa.Integer,
}  # fmt: skip


class CheckpointSQL:
    def __init__(self, dialect: str, serde: SerializerProtocol) -> None:
        self.sqlite = dialect == "sqlite"
        self.serde = serde
        self._statements: dict[ReadShape, sa.CompoundSelect[Any]] = {}
        self._driver_texts: dict[Hashable, str] = {}
        self._sqlite_defaults: dict[ReadShape, dict[str, Any]] = {}
        self.insert = insert = sqlite.insert if self.sqlite else postgresql.insert
        # built once, so SQLAlchemy compiles each of them once
        self._insert_blobs = insert(BLOBS).on_conflict_do_nothing()
        upsert = insert(CHECKPOINTS)
        self._upsert_checkpoint = upsert.on_conflict_do_update(
            index_elements=["thread_id", "checkpoint_ns", "checkpoint_id"],
            set_={c: upsert.excluded[c] for c in _CHECKPOINT_DATA},
        )
        if not self.sqlite:  # any number of checkpoints and their blobs, as arrays
            new_blobs = unnest_insert(BLOBS, _BLOB_COLUMNS).on_conflict_do_nothing()
            upsert_all = unnest_insert(CHECKPOINTS, _CHECKPOINT_COLUMNS)
            self._put_with_blobs = upsert_all.on_conflict_do_update(
                index_elements=["thread_id", "checkpoint_ns", "checkpoint_id"],
                set_={c: upsert_all.excluded[c] for c in _CHECKPOINT_DATA},
            ).add_cte(new_blobs.cte("blobs"))
        # PostgreSQL takes writes as arrays in one statement, SQLite as executemany
        upsert_w = unnest_insert(WRITES, _WRITE_COLUMNS) if not self.sqlite else insert(WRITES)
        self._insert_writes = upsert_w.on_conflict_do_nothing()
        self._upsert_writes = upsert_w.on_conflict_do_update(
            index_elements=_WRITE_KEY,
            set_={c: upsert_w.excluded[c] for c in ("channel", "type", "blob", "task_path")},
        )

    # --- queries --------------------------------------------------------------------------------

    def plan(
        self,
        *,
        thread_id: str | None = None,
        ns: str | None = None,
        checkpoint_id: str | None = None,
        filter: dict[str, Any] | None = None,
        before_id: str | None = None,
        limit: int | None = None,
    ) -> tuple[ReadShape, dict[str, Any]]:
        """The shape of a read (which prebuilt statement) and its parameters. Everything the
        caller gives, metadata keys included, is a bound parameter, never SQL text."""
        given = {"thread_id": thread_id, "ns": ns, "checkpoint_id": checkpoint_id}
        params: dict[str, Any] = {k: v for k, v in given.items() if v is not None}
        if before_id is not None:
            params["before"] = before_id
        if limit is not None:
            params["limit"] = int(limit)
        filter = filter or {}
        if self.sqlite:
            for i, (key, value) in enumerate(filter.items()):
                params[f"key_{i}"], params[f"value_{i}"] = key, json.dumps(value)
        elif filter:
            params["filter"] = filter
        shape = ReadShape(
            thread_id is not None, ns is not None, checkpoint_id is not None,
            len(filter), before_id is not None, limit is not None,
        )  # fmt: skip
        return shape, params

    def _statement(self, shape: ReadShape) -> sa.CompoundSelect[Any]:
        """Built once per shape: building a statement costs more than running it.

        On SQLite the values are parameters; on PostgreSQL each is an array (`_given`), so that
        reads queued together run as one statement, each head row carrying `n`, the position of
        the read it answers (1 on SQLite)."""
        if (known := self._statements.get(shape)) is not None:
            return known
        given = None if self.sqlite else _given(shape)

        def value(name: str) -> Any:
            return sa.bindparam(name, type_=_GIVEN_TYPES[name]) if given is None else given.c[name]

        c = CHECKPOINTS.c
        where: list[sa.ColumnElement[bool]] = []
        for wanted, column, name in (
            (shape.thread_id, c.thread_id, "thread_id"),
            (shape.ns, c.checkpoint_ns, "ns"),
            (shape.checkpoint_id, c.checkpoint_id, "checkpoint_id"),
        ):
            if wanted:
                where.append(column == value(name))
        if shape.filter_keys and given is not None:
            where.append(sa.type_coerce(c["metadata"], JSONB).contains(value("filter")))
        elif shape.filter_keys:
            where += self._sqlite_metadata_filter(shape.filter_keys)
        if shape.before:
            where.append(c.checkpoint_id < value("before"))
        heads = sa.select(CHECKPOINTS).where(*where).order_by(c.checkpoint_id.desc())
        if shape.limit or given is not None:  # PostgreSQL: LIMIT NULL is no limit
            heads = heads.limit(value("limit"))
        if given is None:
            heads = heads.add_columns(sa.literal_column("1").label("n"))
        else:
            found = heads.lateral("found")
            heads = sa.select(found, given.c.n).select_from(given.join(found, sa.true()))
        statement = self._statements[shape] = self._read_query(heads)
        return statement

    def _sqlite_metadata_filter(self, keys: int) -> list[sa.ColumnElement[bool]]:
        column = CHECKPOINTS.c["metadata"]
        where: list[sa.ColumnElement[bool]] = []
        for i in range(keys):
            # json_each rather than a JSON path: any key works, even one with quotes in it
            entry = sa.func.json_each(column).table_valued("key", "value")
            wanted = sa.func.json_extract(sa.bindparam(f"value_{i}"), "$")
            match = sa.and_(entry.c.key == sa.bindparam(f"key_{i}"), entry.c.value == wanted)
            where.append(sa.exists().where(match))
        return where

    # --- reads ----------------------------------------------------------------------------------

    def sqlite_fetch(
        self, conn: sa.Connection, shape: ReadShape, params: dict[str, Any]
    ) -> list[Any]:
        """SQLite: the rows of the checkpoints a `plan` selects, with their blobs and pending
        writes (one query, one round trip); `decode` makes them tuples, outside the worker
        (PostgreSQL: `read_statement`)."""
        statement = self._statement(shape)
        if (raw := sqlite_driver(conn)) is None:
            return list(conn.execute(statement, params))
        defaults = self._sqlite_defaults.get(shape)
        if defaults is None:  # the statement's own literals, as anonymous parameters
            compiled = statement.compile(dialect=_SQLITE)
            defaults = self._sqlite_defaults[shape] = {
                name: value for name, value in compiled.params.items() if value is not None
            }
        cursor = raw.execute(self._sqlite_sql(shape, statement), {**defaults, **params})
        names = tuple(column[0] for column in cursor.description)
        row = _ROW_TYPES.get(names) or _ROW_TYPES.setdefault(names, namedtuple("Row", names))
        return [row._make(found) for found in cursor.fetchall()]

    def decode(self, rows: Iterable[Any]) -> list[CheckpointTuple]:
        """The checkpoint tuples in the rows of a read query (`_read_query`), newest first."""
        found: dict[tuple[str, str, str], LoadedHead] = {}
        blobs: dict[tuple[str, str, str, str], tuple[str, Any]] = {}
        writes: list[Any] = []
        for r in rows:
            if r.kind == "h":
                found[(r.thread_id, r.checkpoint_ns, r.checkpoint_id)] = self._decode_head(r)
            elif r.kind == "b":
                blobs[(r.thread_id, r.checkpoint_ns, r.ref, r.key)] = (r.type, r.payload)
            else:
                writes.append(r)
        for w in writes:
            head = found[(w.thread_id, w.checkpoint_ns, w.checkpoint_id)]
            head.writes.append((w.extra, w.key, w.idx, w.ref, w.type, w.payload))
        newest_first = sorted(found.values(), key=lambda h: h.checkpoint_id, reverse=True)
        return [head.to_tuple(self.serde, blobs) for head in newest_first]

    def _decode_head(self, row: Any) -> LoadedHead:
        return LoadedHead(
            thread_id=row.thread_id,
            checkpoint_ns=row.checkpoint_ns,
            checkpoint_id=row.checkpoint_id,
            parent_checkpoint_id=row.ref,
            body=self.serde.loads_typed((row.type, row.payload)),
            metadata=json.loads(row.extra),
        )

    def _read_query(self, heads: sa.Select[Any]) -> sa.CompoundSelect[Any]:
        """UNION ALL of the head rows, the blobs their `blob_versions` name, and their writes.

        Columns: kind (h/b/w), thread_id, checkpoint_ns, checkpoint_id, ref (parent id or
        channel), type, key (version or task id), extra (metadata or task path), idx, payload,
        n (the read answered, see `_statement`).
        """
        head = heads.cte("head")
        null = sa.cast(sa.null(), sa.Text)
        head_rows = sa.select(
            sa.literal_column("'h'").label("kind"), head.c.thread_id, head.c.checkpoint_ns,
            head.c.checkpoint_id, head.c.parent_checkpoint_id.label("ref"), head.c.type,
            null.label("key"), sa.cast(head.c.metadata, sa.Text).label("extra"),
            sa.cast(sa.null(), sa.Integer).label("idx"), head.c.checkpoint.label("payload"),
            head.c.n,
        )  # fmt: skip
        blob_rows = sa.select(
            sa.literal_column("'b'"), BLOBS.c.thread_id, BLOBS.c.checkpoint_ns, null,
            BLOBS.c.channel, BLOBS.c.type, BLOBS.c.version, null, sa.cast(sa.null(), sa.Integer),
            BLOBS.c.blob, head.c.n,
        ).select_from(self._blobs_named(head))  # fmt: skip
        write_rows = sa.select(
            sa.literal_column("'w'"), WRITES.c.thread_id, WRITES.c.checkpoint_ns,
            WRITES.c.checkpoint_id, WRITES.c.channel, WRITES.c.type, WRITES.c.task_id,
            WRITES.c.task_path, WRITES.c.idx, WRITES.c.blob, head.c.n,
        ).select_from(head.join(WRITES, sa.and_(
            WRITES.c.thread_id == head.c.thread_id, WRITES.c.checkpoint_ns == head.c.checkpoint_ns,
            WRITES.c.checkpoint_id == head.c.checkpoint_id,
        )))  # fmt: skip
        return sa.union_all(head_rows, blob_rows, write_rows)

    def _blobs_named(self, head: sa.CTE) -> sa.Join:
        """Each head row joined to the blobs its `blob_versions` ({channel: version}) names.

        SQLite: as `(channel, version) IN (json_each(...))`, which it looks up by the blobs'
        whole key. Given as a join instead, its planner ran json_each inside a walk of all the
        thread's blobs (the thread's history, one blob per changed channel and step: a read of
        3 checkpoints of a 60-step thread took 0.22 ms instead of 0.04 ms)."""
        same_thread = sa.and_(
            BLOBS.c.thread_id == head.c.thread_id, BLOBS.c.checkpoint_ns == head.c.checkpoint_ns
        )
        if self.sqlite:
            named = sa.func.json_each(head.c.blob_versions).table_valued("key", "value")
            wanted = sa.select(named.c.key, named.c.value)
            return head.join(BLOBS, sa.and_(
                same_thread, sa.tuple_(BLOBS.c.channel, BLOBS.c.version).in_(wanted)
            ))  # fmt: skip
        each = sa.func.jsonb_each_text(head.c.blob_versions)
        version = each.table_valued("key", "value").lateral()
        return head.join(version, sa.true()).join(BLOBS, sa.and_(
            same_thread, BLOBS.c.channel == version.c.key, BLOBS.c.version == version.c.value
        ))  # fmt: skip

    # --- writes ---------------------------------------------------------------------------------

    def sqlite_put(
        self, conn: sa.Connection, blob_rows: list[dict[str, Any]], row: dict[str, Any]
    ) -> None:
        """SQLite: blobs first, then the checkpoint that points at them, so a checkpoint never
        refers to a missing blob (PostgreSQL: `put_statement`)."""
        if (raw := sqlite_driver(conn)) is None:
            if blob_rows:
                conn.execute(self._insert_blobs, blob_rows)
            conn.execute(self._upsert_checkpoint, row)
            return
        if blob_rows:
            raw.executemany(self._sqlite_sql("blobs", self._insert_blobs), blob_rows)
        row = {**row, **{name: json_text(row[name]) for name in ("blob_versions", "metadata")}}
        raw.execute(self._sqlite_sql("put", self._upsert_checkpoint), row)

    def sqlite_put_writes(
        self, conn: sa.Connection, rows: list[dict[str, Any]], special: bool
    ) -> None:
        """SQLite: special writes (error, interrupt, ...) replace; ordinary ones are
        insert-or-ignore, so writing a task's writes again (a retry) is harmless (PostgreSQL:
        `writes_statement`)."""
        statement = self._upsert_writes if special else self._insert_writes
        if (raw := sqlite_driver(conn)) is not None:
            raw.executemany(self._sqlite_sql(("writes", special), statement), rows)
            return
        conn.execute(statement, rows)

    # --- PostgreSQL, straight to the driver (storage.postgres_worker) ------------------------

    # Each is one statement whose parameters are arrays, so the worker merges those queued
    # together: one statement for all of them.

    def read_statement(self, shape: ReadShape, params: dict[str, Any]) -> Statement:
        if "filter" in params:
            params = {**params, "filter": json.dumps(params["filter"])}
        sql = self._driver_sql(shape, self._statement(shape))
        given = {f"given_{name}": [params.get(name)] for name in _given_names(shape)}
        return Statement(sql, given, returns_rows=True, mergeable=True)

    def put_statement(self, blob_rows: list[dict[str, Any]], row: dict[str, Any]) -> Statement:
        """`sqlite_put` as one statement, atomic: the blobs in a CTE, then the checkpoint."""
        row = {**row, **{name: json_text(row[name]) for name in ("blob_versions", "metadata")}}
        params = as_arrays(CHECKPOINTS, _CHECKPOINT_COLUMNS, [row])
        params.update(as_arrays(BLOBS, _BLOB_COLUMNS, blob_rows))
        return Statement(self._driver_sql("put", self._put_with_blobs), params, mergeable=True)

    def writes_statement(self, rows: list[dict[str, Any]], special: bool) -> Statement:
        """`put_writes` as one statement (see there)."""
        statement = self._upsert_writes if special else self._insert_writes
        sql = self._driver_sql("upsert" if special else "insert", statement)
        return Statement(sql, as_arrays(WRITES, _WRITE_COLUMNS, rows), mergeable=True)

    def _sqlite_sql(self, key: Hashable, statement: sa.ClauseElement) -> str:
        """SQL text with sqlite3's `:name` placeholders, compiled once per statement."""
        key = ("sqlite", key)
        if (known := self._driver_texts.get(key)) is None:
            known = self._driver_texts[key] = str(statement.compile(dialect=_SQLITE))
        return known

    def _driver_sql(self, key: Hashable, statement: sa.ClauseElement) -> str:
        """SQL text with psycopg's placeholders, compiled once per statement."""
        if (known := self._driver_texts.get(key)) is None:
            known = self._driver_texts[key] = str(statement.compile(dialect=_PSYCOPG))
        return known

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


def _given_names(shape: ReadShape) -> list[str]:
    wanted = (shape.thread_id, shape.ns, shape.checkpoint_id, shape.filter_keys, shape.before)
    return [name for name, on in zip(_GIVEN_TYPES, (*wanted, True), strict=True) if on]


def _given(shape: ReadShape) -> Any:
    """PostgreSQL: the values of reads of one shape as a table (parameters `given_<name>`, one
    array each), numbered `n` from 1; LIMIT is always given (NULL: none)."""
    arrays = [
        sa.bindparam(f"given_{name}", type_=postgresql.ARRAY(_GIVEN_TYPES[name]))
        for name in _given_names(shape)
    ]
    each = sa.func.unnest(*arrays).table_valued(*_given_names(shape), with_ordinality="n")
    return each.render_derived("given")


def sqlite_driver(conn: sa.Connection) -> sqlite3.Connection | None:
    """The stdlib sqlite3 connection under `conn` (the saver's worker threads), else None: the
    worker's hot statements go to it straight, as SQL text compiled once, without SQLAlchemy's
    per-execute work (it was most of a worker's time under many threads). Refuses a connection
    to any other database: the `sqlite_*` operations are not PostgreSQL's (its `*_statement`s)."""
    if conn.dialect.name != "sqlite":
        raise RuntimeError(f"a SQLite-only operation was given a {conn.dialect.name} connection")
    raw = conn.connection.driver_connection
    return raw if isinstance(raw, sqlite3.Connection) else None
