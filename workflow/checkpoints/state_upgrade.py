"""The one upgrade of a checkpoint kept before the state had its per-phase parts: its flat keys
(some releases lacked the later ones) become the parts of workflow/state.py.

LangGraph builds each channel of the graph from `channel_values[name]` and drops a stored value
whose name is no channel, so a flat checkpoint must be upgraded before the graph reads it:
`UpgradingSaver` (workflow/checkpoints/upgrading_saver.py) does it as a checkpoint is loaded.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langgraph.checkpoint.base import ChannelVersions, Checkpoint, copy_checkpoint

from workflow.state import ChangeState

START = "__start__"  # LangGraph's input channel: a flat state given as input waits there

# part -> {its key: the flat key it was}; "outcome" kept its name and shape
PART_KEYS: dict[str, dict[str, str]] = {
    "request": {k: k for k in ("change_id", "text", "requester", "rollback_of", "scope")},
    "lab": {"topology": "topology"},
    "planning": {k: k for k in ("attempt", "errors", "feedback", "tokens")},
    "template": {
        "proposal": "template",
        "examples": "examples",
        "shown": "shown_template",
        "newer_versions": "newer_versions",
    },
    "params": {"device_params": "device_params", "previews": "previews"},
    "push": {"result": "push_result", "drifted": "drifted", "records": "pushes"},
    "checks": {"result": "post_check_result", "landed_outside": "landed_outside"},
    "rollback": {"restore": "rollback", "undo_plan": "undo_plan"},
    "gates": {"open": "gate", "approved": "approved", "decisions": "decisions"},
}
FLAT_KEYS = {*(flat for keys in PART_KEYS.values() for flat in keys.values()), "outcome"}

# the keys releases added after the first, at the empty value a checkpoint without them means
ADDED_LATER: dict[str, Any] = dict(
    scope="",
    shown_template=None,
    newer_versions={},
    post_check_result=None,
    undo_plan=None,
    drifted={},
    landed_outside=None,
    pushes=[],
)


def is_flat(values: Mapping[str, Any]) -> bool:
    """Whether `values` are a state as kept before its parts (every release had `change_id`)."""
    return "change_id" in values


def parts_of(flat: Mapping[str, Any]) -> ChangeState:
    """The parts of a flat state kept by any release before them."""
    values = {**ADDED_LATER, **flat}
    parts: dict[str, Any] = {
        part: {key: values[old] for key, old in keys.items()} for part, keys in PART_KEYS.items()
    }
    state: ChangeState = {**parts, "outcome": values["outcome"]}  # type: ignore[typeddict-item]
    return state


def upgraded_checkpoint(checkpoint: Checkpoint, version: str | int | float) -> Checkpoint | None:
    """`checkpoint` with its flat state in parts, each part at `version` (one no channel had
    before, so no value stored under an old one is taken for a part); None when it needs none.

    The flat keys leave `channel_versions`, `versions_seen` and `updated_channels`: a node is
    triggered by its `branch:to:*` channel, which keeps its version, so the same node runs next
    and its task keeps its id (a pending gate's interrupt id with it).
    """
    values, versions = checkpoint["channel_values"], checkpoint["channel_versions"]
    waiting = values.get(START)
    if is_flat(values):
        upgraded = copy_checkpoint(checkpoint)
        kept = {k: v for k, v in values.items() if k not in FLAT_KEYS}
        upgraded["channel_values"] = {**kept, **parts_of(values)}
        upgraded["channel_versions"] = _versions(versions, version)
    elif isinstance(waiting, dict) and is_flat(waiting):  # stored before its first step ran
        upgraded = copy_checkpoint(checkpoint)
        upgraded["channel_values"] = {**values, START: parts_of(waiting)}
        upgraded["channel_versions"] = {**versions, START: version}
    else:
        return None
    upgraded["versions_seen"] = {
        node: {k: v for k, v in seen.items() if k not in FLAT_KEYS}
        for node, seen in checkpoint["versions_seen"].items()
    }
    if updated := checkpoint.get("updated_channels"):
        upgraded["updated_channels"] = sorted(_channel_names(updated))
    return upgraded


def _versions(versions: ChannelVersions, version: str | int | float) -> ChannelVersions:
    kept = {k: v for k, v in versions.items() if k not in FLAT_KEYS}
    return {**kept, **{part: version for part in (*PART_KEYS, "outcome")}}


def _channel_names(names: list[str]) -> set[str]:
    """The channels of the parts that `names` (flat keys and other channels) were."""
    part_of = {old: part for part, keys in PART_KEYS.items() for old in keys.values()}
    return {part_of.get(name, name) for name in names}
