"""The sync half of BaseCheckpointSaver for an async-first saver, as AsyncPostgresSaver does it.

Each sync method runs its async twin on the saver's event loop and waits, so LangGraph code on
another thread (`graph.invoke` in a worker) can use the saver. On the loop's own thread waiting
would deadlock, so it refuses with a message that says what to call instead.
"""

from __future__ import annotations

import asyncio
import builtins
from collections.abc import AsyncIterator, Coroutine, Iterator, Sequence
from typing import Any, TypeVar

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    BaseCheckpointSaver,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
)

from base.errors import StorageError

T = TypeVar("T")


class SyncFacade(BaseCheckpointSaver[str]):
    loop: asyncio.AbstractEventLoop | None

    def _wait(self, coro: Coroutine[Any, Any, T]) -> T:
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if self.loop is None or running is self.loop:
            coro.close()
            where = "without an event loop" if self.loop is None else "on its event loop's thread"
            raise StorageError(
                f"{type(self).__name__}'s sync methods cannot run {where}: create the saver "
                "inside the event loop and call the async methods there (await "
                "saver.aget_tuple(...), graph.ainvoke), or call the sync ones from another thread"
            )
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    @staticmethod
    async def _collect(found: AsyncIterator[CheckpointTuple]) -> builtins.list[CheckpointTuple]:
        return [item async for item in found]

    def get_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        return self._wait(self.aget_tuple(config))

    def list(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> Iterator[CheckpointTuple]:
        found = self.alist(config, filter=filter, before=before, limit=limit)
        return iter(self._wait(self._collect(found)))

    def put(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        return self._wait(self.aput(config, checkpoint, metadata, new_versions))

    def put_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        self._wait(self.aput_writes(config, writes, task_id, task_path))

    def delete_thread(self, thread_id: str) -> None:
        self._wait(self.adelete_thread(thread_id))

    def delete_for_runs(self, run_ids: Sequence[str]) -> None:
        self._wait(self.adelete_for_runs(run_ids))

    def copy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        self._wait(self.acopy_thread(source_thread_id, target_thread_id))

    def prune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        self._wait(self.aprune(thread_ids, strategy=strategy))
