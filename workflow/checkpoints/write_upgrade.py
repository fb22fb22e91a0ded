"""The pending writes of a checkpoint kept before the state had its parts, upgraded like its values
(workflow/checkpoints/state_upgrade.py): each task's writes to flat keys become writes of whole
parts.

A task that finished before a crash left its writes pending; LangGraph applies them when the
run goes on, and drops a write to a channel the graph lacks with only a warning. The old flat
state had no reducers, so a write to a flat key set that key: the part it belongs to, as the
checkpoint holds it, with the task's keys set, is the same update written whole. Writes stay
flat in storage (a stored write is never replaced), so they are upgraded on every load.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from langgraph.checkpoint.base import PendingWrite

from workflow.checkpoints.state_upgrade import PART_KEYS, is_flat, parts_of

# flat key -> (its part, its key there); "outcome" kept its name and shape
PART_OF: dict[str, tuple[str, str]] = {
    old: (part, key) for part, keys in PART_KEYS.items() for key, old in keys.items()
}


class UnupgradableWrites(Exception):
    """Pending flat writes with no sound upgrade: two tasks set one part (as whole parts they
    would clash), or a part is written that the checkpoint lacks."""


def upgraded_writes(
    values: Mapping[str, Any], writes: Sequence[PendingWrite]
) -> list[PendingWrite] | None:
    """`writes` with every task's flat writes as whole parts built on `values` (the checkpoint's
    parts); None when none is flat. Raises UnupgradableWrites when that cannot be sound."""
    flat = [write for write in writes if _is_flat_write(write)]
    if not flat:
        return None
    by_task: dict[str, dict[str, Any]] = {}
    for task_id, channel, value in flat:
        by_task.setdefault(task_id, {})[channel] = value
    parts = {task: _parts(values, keys) for task, keys in by_task.items()}
    _refuse_clashes(parts)
    kept = [write for write in writes if not _is_flat_write(write)]
    return kept + [
        (task, part, value) for task, got in parts.items() for part, value in got.items()
    ]


def _is_flat_write(write: PendingWrite) -> bool:
    """Whether `write` sets a flat key: "template" and "rollback" name a part too, whose value
    is a dict of exactly the part's keys."""
    _, channel, value = write
    if channel not in PART_OF:
        return False
    if channel not in PART_KEYS:
        return True
    return not (isinstance(value, dict) and set(value) == set(PART_KEYS[channel]))


def _parts(values: Mapping[str, Any], flat: Mapping[str, Any]) -> dict[str, Any]:
    """The parts one task's flat writes set, whole: a flat state given as input (it has
    `change_id`, as every release's input had) sets every part."""
    if is_flat(flat):
        return {part: value for part, value in parts_of(flat).items() if part in PART_KEYS}
    parts: dict[str, Any] = {}
    for channel, value in flat.items():
        part, key = PART_OF[channel]
        if part not in values:
            raise UnupgradableWrites(f"a pending write of {channel!r} has no {part!r} to go in")
        parts.setdefault(part, dict(values[part]))[key] = value
    return parts


def _refuse_clashes(parts: Mapping[str, dict[str, Any]]) -> None:
    seen: dict[str, str] = {}
    for task, got in parts.items():
        for part in got:
            if part in seen:
                raise UnupgradableWrites(f"tasks {seen[part]} and {task} both set part {part!r}")
            seen[part] = task
