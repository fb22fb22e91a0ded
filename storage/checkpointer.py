"""`SQLAlchemySaver`: a LangGraph checkpointer on SQLAlchemy 2 (async), for SQLite and PostgreSQL.

The layout follows langgraph-checkpoint-postgres: a checkpoint row (inline primitives), channel
values once per version in `checkpoint_blobs`, pending writes in `checkpoint_writes`. Special
writes (error, interrupt, resume, ...) are upserted; ordinary writes are insert-or-ignore, so a
retried task cannot duplicate them. Metadata filters are bound parameters, never SQL text.

Each operation runs whole in one call (see storage.checkpoint_sql). On PostgreSQL, reads and
puts are one statement each, sent straight to psycopg by the saver's worker
(storage.postgres_worker), which runs those of one kind queued together as one statement; on a
SQLite file, the saver's worker thread (storage.sqlite_worker) commits those queued together at
once, and a second one runs the reads on a connection of its own (WAL: readers never wait for the
writer's commit).
Rows are decoded into tuples on the caller's loop, outside the workers. The rarer operations
(deletes, copies, pruning) run inside `AsyncConnection.run_sync`.

Values are stored as `serde` makes them: labbot passes `storage.encryption.encrypted_serde`, so
every checkpoint, blob and write is sealed at rest (`storage.reseal` seals older ones).
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Any, TypeVar

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    WRITES_IDX_MAP,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
    get_checkpoint_id,
)
from langgraph.checkpoint.serde.base import SerializerProtocol
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncEngine

from storage import prune
from storage.checkpoint_rows import checkpoint_rows, write_rows
from storage.checkpoint_sql import CheckpointSQL, ReadShape
from storage.db import is_sqlite, make_engine, sqlite_file_twin, transactional, upgrade_engine
from storage.postgres_worker import PostgresWorker
from storage.sqlite_worker import SQLiteWorker
from storage.sync_facade import SyncFacade

__all__ = ["SQLAlchemySaver"]

T = TypeVar("T")


class SQLAlchemySaver(SyncFacade):
    """Checkpointer on an `AsyncEngine` whose schema is at head (see `from_url`).

    Built directly, call `await saver.aclose()` when done (it stops the SQLite worker thread).
    """

    def __init__(
        self,
        engine: AsyncEngine,
        *,
        serde: SerializerProtocol | None = None,
        autocommit: bool = False,
    ) -> None:
        """`autocommit`: `engine` was made with `make_engine(..., autocommit=True)`, so the
        single-statement operations use it as it is, without switching modes each time."""
        super().__init__(serde=serde)
        self.engine = engine
        self.sql = CheckpointSQL(engine.dialect.name, self.serde)
        self._autocommit = (
            engine if autocommit else engine.execution_options(isolation_level="AUTOCOMMIT")
        )
        self._transactional = transactional(engine) if autocommit else engine
        twin, reads_twin = sqlite_file_twin(engine), sqlite_file_twin(engine)
        self._worker = SQLiteWorker(twin) if twin is not None else None
        self._reader = SQLiteWorker(reads_twin, "sqlite-saver-reads") if reads_twin else None
        self._postgres = None if is_sqlite(engine) else PostgresWorker(self._autocommit)
        try:
            self.loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            self.loop = None

    @classmethod
    @asynccontextmanager
    async def from_url(
        cls, url: str, *, serde: SerializerProtocol | None = None
    ) -> AsyncIterator[SQLAlchemySaver]:
        """A ready saver on `url`, its schema migrated to head first (idempotent, serialized)."""
        # no ping: `_run` retries on a dropped connection; autocommit: see storage.checkpoint_sql
        engine = make_engine(url, pre_ping=False, autocommit=True)
        try:
            await upgrade_engine(engine)
            saver = cls(engine, serde=serde, autocommit=True)
            try:
                yield saver
            finally:
                await saver.aclose()
        finally:
            await engine.dispose()

    async def aclose(self) -> None:
        for worker in (self._reader, self._worker):
            if worker is not None:
                await worker.close()
        if self._postgres is not None:
            await self._postgres.close()

    async def _run(self, work: Callable[..., T], *args: Any, atomic: bool) -> T:
        """Run `work(connection, *args)` whole: in a transaction when `atomic`, else autocommit.

        Every operation is idempotent (reads, upserts, insert-or-ignore, deletes), so one that
        met a dropped connection (server restart, failover) is simply run again on a new one:
        no ping before each use needed.
        """
        if self._worker is not None:
            return await self._worker.run(work, *args)
        try:
            return await self._run_async(work, args, atomic)
        except DBAPIError as exc:
            if not exc.connection_invalidated:
                raise
            return await self._run_async(work, args, atomic)

    async def _run_async(self, work: Callable[..., T], args: tuple[Any, ...], atomic: bool) -> T:
        connect = self._transactional.begin() if atomic else self._autocommit.connect()
        async with connect as conn:
            return await conn.run_sync(work, *args)

    # --- reads ----------------------------------------------------------------------------------

    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        conf = config["configurable"]
        checkpoint_id = get_checkpoint_id(config)
        shape, params = self.sql.plan(
            thread_id=conf["thread_id"],
            ns=conf.get("checkpoint_ns", ""),
            checkpoint_id=checkpoint_id,
            limit=None if checkpoint_id else 1,
        )
        found = await self._read(shape, params)
        return found[0] if found else None

    async def alist(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[CheckpointTuple]:
        conf = config["configurable"] if config else {}
        shape, params = self.sql.plan(
            thread_id=conf.get("thread_id"),
            ns=conf.get("checkpoint_ns"),
            checkpoint_id=conf.get("checkpoint_id"),
            filter=filter,
            before_id=get_checkpoint_id(before) if before else None,
            limit=limit,
        )
        for item in await self._read(shape, params):
            yield item

    async def _read(self, shape: ReadShape, params: dict[str, Any]) -> list[CheckpointTuple]:
        if self._postgres is not None:
            rows = await self._postgres.run(self.sql.read_statement(shape, params))
        elif self._reader is not None:
            rows = await self._reader.run(self.sql.sqlite_fetch, shape, params)
        else:
            rows = await self._run(self.sql.sqlite_fetch, shape, params, atomic=False)
        return self.sql.decode(rows or [])

    # --- writes ---------------------------------------------------------------------------------

    async def aput(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        blob_rows, row = checkpoint_rows(self.serde, config, checkpoint, metadata, new_versions)
        if self._postgres is not None:
            await self._postgres.run(self.sql.put_statement(blob_rows, row))
        else:
            await self._run(self.sql.sqlite_put, blob_rows, row, atomic=False)
        keys = ("thread_id", "checkpoint_ns", "checkpoint_id")
        return {"configurable": {key: row[key] for key in keys}}

    async def aput_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        if not writes:
            return
        special = all(channel in WRITES_IDX_MAP for channel, _ in writes)
        rows = write_rows(self.serde, config, writes, task_id, task_path)
        if self._postgres is not None:
            await self._postgres.run(self.sql.writes_statement(rows, special))
        else:
            await self._run(self.sql.sqlite_put_writes, rows, special, atomic=False)

    async def adelete_thread(self, thread_id: str) -> None:
        await self._run(self.sql.delete_thread, str(thread_id), atomic=True)

    async def adelete_for_runs(self, run_ids: Sequence[str]) -> None:
        if run_ids:
            await self._run(self.sql.delete_for_runs, [str(r) for r in run_ids], atomic=True)

    async def acopy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        source, target = str(source_thread_id), str(target_thread_id)
        await self._run(self.sql.copy_thread, source, target, atomic=True)

    async def aprune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        """`delete` drops the threads; `keep_latest` keeps the newest checkpoint per namespace."""
        if isinstance(thread_ids, str):
            raise TypeError("thread_ids must be a sequence of thread IDs, not a str")
        if strategy not in prune.STRATEGIES:
            raise ValueError(f"Unknown prune strategy: {strategy!r}")
        for thread_id in [str(t) for t in thread_ids]:
            if strategy == "delete":
                await self.adelete_thread(thread_id)
            else:
                await self._run(prune.keep_latest, self.serde, thread_id, atomic=True)

    def get_next_version(self, current: str | int | float | None, channel: None) -> str:
        """Like the PostgreSQL saver: a counter plus a random suffix, so forks of one checkpoint
        never store two different values under the same (channel, version)."""
        number = 0 if current is None else int(str(current).split(".")[0])
        return f"{number + 1:032}.{random.random():016}"
