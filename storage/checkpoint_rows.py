"""Checkpoints to rows and back, with no database in sight (pure; the saver does the SQL).

Like langgraph-checkpoint-postgres, small primitive channel values stay inline in the checkpoint
row and every other value is stored once per (channel, version) in `checkpoint_blobs`. Long
strings go to blobs too, so a big text does not repeat in every checkpoint.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    WRITES_IDX_MAP,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
    PendingWrite,
    get_serializable_checkpoint_metadata,
    writes_sort_key,
)
from langgraph.checkpoint.serde.base import SerializerProtocol
from langgraph.checkpoint.serde.types import _DeltaSnapshot

INLINE_STR_MAX = 1024


def is_inline(value: Any) -> bool:
    if isinstance(value, str):
        return len(value) <= INLINE_STR_MAX
    return value is None or isinstance(value, int | float | bool)


def blob_versions(body: Mapping[str, Any]) -> dict[str, str]:
    """{channel: version} of the values kept in blobs (a `True` inline may mark a snapshot)."""
    inline = body["channel_values"]
    return {
        channel: str(version)
        for channel, version in body["channel_versions"].items()
        if channel not in inline or inline[channel] is True
    }


def split_checkpoint(checkpoint: Checkpoint) -> tuple[dict[str, Any], dict[str, Any]]:
    """(checkpoint with only inline values, values that go to the blobs table).

    A `_DeltaSnapshot` goes to blobs and leaves a `True` marker inline, as the PostgreSQL saver
    does, so delta-channel history walks see a stored value at that checkpoint.
    """
    inline: dict[str, Any] = {}
    blobs: dict[str, Any] = {}
    for channel, value in checkpoint["channel_values"].items():
        if isinstance(value, _DeltaSnapshot):
            blobs[channel] = value
            inline[channel] = True
        elif is_inline(value):
            inline[channel] = value
        else:
            blobs[channel] = value
    body = dict(checkpoint)
    body["channel_values"] = inline
    return body, blobs


def checkpoint_rows(
    serde: SerializerProtocol,
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    new_versions: ChannelVersions,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """(rows for the blobs of the channels that changed, the checkpoint row)."""
    conf = config["configurable"]
    thread_id, ns = conf["thread_id"], conf.get("checkpoint_ns", "")
    body, blob_values = split_checkpoint(checkpoint)
    blobs = []
    for channel, version in new_versions.items():
        if channel in blob_values:
            type_, blob = serde.dumps_typed(blob_values[channel])
            blobs.append(
                {"thread_id": thread_id, "checkpoint_ns": ns, "channel": channel,
                 "version": str(version), "type": type_, "blob": blob}
            )  # fmt: skip
    type_, payload = serde.dumps_typed(body)
    meta = get_serializable_checkpoint_metadata(config, metadata)
    run_id = meta.get("run_id")
    row = {
        "thread_id": thread_id,
        "checkpoint_ns": ns,
        "checkpoint_id": checkpoint["id"],
        "parent_checkpoint_id": conf.get("checkpoint_id"),
        "run_id": None if run_id is None else str(run_id),
        "type": type_,
        "checkpoint": payload,
        "blob_versions": blob_versions(body),
        "metadata": meta,
    }
    return blobs, row


def write_rows(
    serde: SerializerProtocol,
    config: RunnableConfig,
    writes: Sequence[tuple[str, Any]],
    task_id: str,
    task_path: str,
) -> list[dict[str, Any]]:
    conf = config["configurable"]
    rows = []
    for idx, (channel, value) in enumerate(writes):
        type_, blob = serde.dumps_typed(value)
        rows.append(
            {
                "thread_id": conf["thread_id"],
                "checkpoint_ns": conf.get("checkpoint_ns", ""),
                "checkpoint_id": conf["checkpoint_id"],
                "task_id": task_id,
                "task_path": task_path,
                "idx": WRITES_IDX_MAP.get(channel, idx),
                "channel": channel,
                "type": type_,
                "blob": blob,
            }
        )
    return rows


@dataclass
class LoadedHead:
    """One checkpoint row, decoded, waiting for its blobs and pending writes."""

    thread_id: str
    checkpoint_ns: str
    checkpoint_id: str
    parent_checkpoint_id: str | None
    body: dict[str, Any]
    metadata: CheckpointMetadata
    writes: list[tuple[str, str, int, str, str, bytes]] = field(default_factory=list)

    def blob_keys(self) -> list[tuple[str, str]]:
        return list(blob_versions(self.body).items())

    def to_tuple(
        self, serde: SerializerProtocol, blobs: Mapping[tuple[str, str, str, str], tuple[str, Any]]
    ) -> CheckpointTuple:
        values = dict(self.body["channel_values"])
        for channel, version in self.blob_keys():
            stored = blobs.get((self.thread_id, self.checkpoint_ns, channel, version))
            if stored is not None and stored[0] != "empty":
                values[channel] = serde.loads_typed(stored)
        checkpoint: Any = {**self.body, "channel_values": values}
        ordered = sorted(self.writes, key=lambda w: writes_sort_key(w[0], w[1], w[2]))
        pending: list[PendingWrite] = [
            (task_id, channel, serde.loads_typed((type_, blob)))
            for _path, task_id, _idx, channel, type_, blob in ordered
        ]
        return CheckpointTuple(
            config=self._config(self.checkpoint_id),
            checkpoint=checkpoint,
            metadata=self.metadata,
            parent_config=(
                self._config(self.parent_checkpoint_id) if self.parent_checkpoint_id else None
            ),
            pending_writes=pending,
        )

    def _config(self, checkpoint_id: str) -> RunnableConfig:
        return {
            "configurable": {
                "thread_id": self.thread_id,
                "checkpoint_ns": self.checkpoint_ns,
                "checkpoint_id": checkpoint_id,
            }
        }
