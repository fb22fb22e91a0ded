"""A Modify that adds to or removes from a list parameter (pure): "add server 10.0.0.2" keeps
10.0.0.1 and adds 10.0.0.2; "remove server 10.0.0.1" drops it; a Modify without such a word
replaces the list, as a key=value does."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

from workflow.model import PlanRequest

ListEdit = tuple[Literal["add", "remove"], list[Any]]
_ADDS = re.compile(r"\b(add|adds|also|plus|append|include|another)\b", re.IGNORECASE)
_REMOVES = re.compile(r"\b(remove|removes|drop|delete|without|exclude|except)\b", re.IGNORECASE)


def split_edits(
    text: str, overrides: Mapping[str, Any], schema: Mapping[str, Mapping[str, Any]]
) -> tuple[dict[str, Any], dict[str, ListEdit]]:
    """The Modify's values that replace (key=value, or no add/remove word) and the list values
    it adds or removes. Words for both in one Modify: neither is guessed, the values replace."""
    adds, removes = bool(_ADDS.search(text)), bool(_REMOVES.search(text))
    if adds == removes:
        return dict(overrides), {}
    mode: Literal["add", "remove"] = "add" if adds else "remove"
    edits: dict[str, ListEdit] = {}
    kept: dict[str, Any] = {}
    for key, value in overrides.items():
        if schema.get(key, {}).get("type") == "list" and isinstance(value, list):
            edits[key] = (mode, value)
        else:
            kept[key] = value
    return kept, edits


def previous_params(request: PlanRequest, device: str) -> dict[str, Any]:
    """The device's parameters of the preview the Modify was given on ({} when none)."""
    previous = request.previous or {}
    by_device = previous.get("device_params") if isinstance(previous, Mapping) else None
    found = by_device.get(device) if isinstance(by_device, Mapping) else None
    return dict(found) if isinstance(found, Mapping) else {}


def edited(current: Any, edit: ListEdit) -> list[Any]:
    """`current` (a list, or nothing yet) with the edit's values added or removed."""
    mode, values = edit
    base = list(current) if isinstance(current, list) else []
    if mode == "add":
        return base + [value for value in values if value not in base]
    return [value for value in base if value not in values]
