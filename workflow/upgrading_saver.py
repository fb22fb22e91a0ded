"""The checkpointer the graph is given: any saver, whose checkpoints kept before the state had its
per-phase parts are upgraded as they are loaded (workflow/state_upgrade.py), in this one place.

LangGraph loads the checkpoint a run continues, and the one a state read shows, with
`aget_tuple`; there an old checkpoint is upgraded and stored again in place (same id, parent,
metadata; its pending writes, kept apart, untouched), its parts at a version no channel had.
A saver that keeps each value once per (channel, version) and writes, with a new checkpoint,
only the values of the channels that step changed (LangGraph's own savers, ours) would
otherwise never store a part the next step leaves alone: the run's next checkpoint would point
at a value nowhere stored. A history read (`alist`) upgrades in memory only: nothing is resumed
from it. Two readers upgrading one checkpoint at once store the same values; each stored row
points at parts its own write stored.
"""

from __future__ import annotations

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

from workflow.state_upgrade import upgraded_checkpoint


class UpgradingSaver(BaseCheckpointSaver[Any]):
    """`saver`, with old checkpoints upgraded as they are loaded. Async only, as the workflow
    runs its graph (workflow.api): a sync call meets BaseCheckpointSaver's NotImplementedError
    rather than an old checkpoint not upgraded."""

    def __init__(self, saver: BaseCheckpointSaver[Any]) -> None:
        super().__init__(serde=saver.serde)
        self.saver = saver

    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        found = await self.saver.aget_tuple(config)
        upgraded = self._upgraded(found)
        if found is None or upgraded is None:
            return found
        at = _row_config(found)
        await self.saver.aput(at, upgraded.checkpoint, found.metadata, _part_versions(upgraded))
        return upgraded

    async def alist(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[CheckpointTuple]:
        async for found in self.saver.alist(config, filter=filter, before=before, limit=limit):
            yield self._upgraded(found) or found

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

    def _upgraded(self, found: CheckpointTuple | None) -> CheckpointTuple | None:
        """`found` upgraded, or None when it needs no upgrade."""
        if found is None:
            return None
        versions = found.checkpoint["channel_versions"].values()
        fresh = self.saver.get_next_version(max(versions, default=None), None)
        checkpoint = upgraded_checkpoint(found.checkpoint, fresh)
        return None if checkpoint is None else found._replace(checkpoint=checkpoint)


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
