"""The checkpointer the graph is given: any saver, whose checkpoints kept before the state had its
per-phase parts are upgraded as they are loaded (workflow/checkpoints/state_upgrade.py), in this
one place.

LangGraph loads the checkpoint a run continues, and the one a state read shows, with
`aget_tuple`; there an old checkpoint is upgraded and stored again in place (same id, parent,
metadata; its pending writes, kept apart, untouched), its parts at a version no channel had.
Its pending writes to flat keys are upgraded to writes of parts on every load (a stored write
is never replaced): workflow/checkpoints/write_upgrade.py.
A saver that keeps each value once per (channel, version) and writes, with a new checkpoint,
only the values of the channels that step changed (LangGraph's own savers, ours) would
otherwise never store a part the next step leaves alone: the run's next checkpoint would point
at a value nowhere stored. A history read (`alist`) upgrades in memory only: nothing is resumed
from it. Two readers upgrading one checkpoint at once store the same values; each stored row
points at parts its own write stored.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Sequence
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    BaseCheckpointSaver,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
)

from workflow.checkpoints.state_upgrade import upgraded_checkpoint
from workflow.checkpoints.write_upgrade import UnupgradableWrites, upgraded_writes

__all__ = ["UpgradingSaver"]

log = logging.getLogger(__name__)


class UpgradingSaver(BaseCheckpointSaver[Any]):
    """`saver`, with old checkpoints upgraded as they are loaded. Async only, as the workflow
    runs its graph (workflow.api): a sync call meets BaseCheckpointSaver's NotImplementedError
    rather than an old checkpoint not upgraded."""

    def __init__(self, saver: BaseCheckpointSaver[Any]) -> None:
        super().__init__(serde=saver.serde)
        self.saver = saver

    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        found = await self.saver.aget_tuple(config)
        if found is None:
            return None
        upgraded = self._upgraded_checkpoint(found)
        if upgraded is not None:
            versions = _part_versions(upgraded)
            await self.saver.aput(_row_config(found), upgraded.checkpoint, found.metadata, versions)
        return _with_writes_upgraded(upgraded or found)

    async def alist(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[CheckpointTuple]:
        async for found in self.saver.alist(config, filter=filter, before=before, limit=limit):
            yield _with_writes_upgraded(self._upgraded_checkpoint(found) or found)

    async def aput(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        return await self.saver.aput(config, checkpoint, metadata, new_versions)

    async def aput_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        await self.saver.aput_writes(config, writes, task_id, task_path)

    def get_next_version(self, current: Any, channel: None) -> Any:
        return self.saver.get_next_version(current, channel)

    def _upgraded_checkpoint(self, found: CheckpointTuple) -> CheckpointTuple | None:
        """`found` with its checkpoint upgraded, or None when it needs no upgrade."""
        versions = found.checkpoint["channel_versions"].values()
        fresh = self.saver.get_next_version(max(versions, default=None), None)
        checkpoint = upgraded_checkpoint(found.checkpoint, fresh)
        return None if checkpoint is None else found._replace(checkpoint=checkpoint)


def _with_writes_upgraded(found: CheckpointTuple) -> CheckpointTuple:
    """`found` with its pending flat writes as writes of parts
    (workflow/checkpoints/write_upgrade.py);
    when they have no sound upgrade, an error is logged and raised: the thread is not resumed
    with a finished task's update lost."""
    try:
        writes = upgraded_writes(found.checkpoint["channel_values"], found.pending_writes or [])
    except UnupgradableWrites as refused:
        thread = found.config["configurable"]["thread_id"]
        log.error(
            "thread %s: its checkpoint %s, kept before the state had its parts, has pending "
            "writes that cannot be upgraded (%s); it is not resumed: finish its change with "
            "the release that stored it, or ask for the change again",
            thread, found.checkpoint["id"], refused,
        )  # fmt: skip
        raise
    return found if writes is None else found._replace(pending_writes=writes)


def _row_config(found: CheckpointTuple) -> RunnableConfig:
    """Where `found` is stored: a put there replaces it and keeps its parent."""
    conf = found.config["configurable"]
    parent = (found.parent_config or {}).get("configurable", {}).get("checkpoint_id")
    row = {"thread_id": conf["thread_id"], "checkpoint_ns": conf.get("checkpoint_ns", "")}
    return {"configurable": {**row, **({"checkpoint_id": parent} if parent else {})}}


def _part_versions(upgraded: CheckpointTuple) -> ChannelVersions:
    """The channels the upgrade gave a new version: stored with the upgraded checkpoint."""
    versions = upgraded.checkpoint["channel_versions"]
    fresh = max(versions.values())
    return {channel: version for channel, version in versions.items() if version == fresh}
