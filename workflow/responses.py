"""The standard tool response (seed 000) and a lossless normalizer for older result shapes.

`success` is true only when nothing failed and there is no global error; counts are always
recomputed from `data`. `normalize_tool_response` never drops information: keys it does not map
go to `metadata["extra"]` (per item id) or `metadata` (top level), plain text becomes a result
item, and counts a tool reported are kept in `metadata["reported_counts"]`.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Mapping, Sequence
from typing import Any

from workflow.model import ResponseItem, StandardResponse

VERSION = "1.0"
_SUCCESS_WORDS = {"success", "succeeded", "successful", "ok", "done", "completed", "passed"}
_FAILURE_WORDS = {"failed", "failure", "fail", "error", "errored", "timeout", "unreachable"}
_PARTIAL_WORDS = {"partial_success", "partial-success", "partial", "partially_successful"}
_LIST_KEYS = ("data", "results", "nodes", "devices", "items", "links", "outputs")
_COUNT_KEYS = ("success", "total", "total_nodes", "successful", "failed")
_ID_KEYS = ("id", "node_id", "device_id", "link_id")
_NAME_KEYS = ("name", "device_name", "device", "hostname", "node_name")
_RESULT_KEYS = ("result", "output")
_ERROR_KEYS = ("error", "message", "reason")


def build_response(
    items: Sequence[ResponseItem],
    *,
    error: str | None = None,
    metadata: Mapping[str, Any] | None = None,
) -> StandardResponse:
    """A standard response whose counts come from `items`; `error` marks a global failure."""
    data = [ResponseItem(**item) for item in items]
    successful = sum(1 for item in data if item["status"] == "success")
    response = StandardResponse(
        success=error is None and successful == len(data),
        total=len(data),
        successful=successful,
        failed=len(data) - successful,
        data=data,
        metadata={**(metadata or {}), "version": VERSION},
    )
    if error is not None:
        response["error"] = error
    return response


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def _first(mapping: Mapping[str, Any], keys: Sequence[str]) -> tuple[str | None, Any]:
    for key in keys:
        if mapping.get(key) not in (None, ""):
            return key, mapping[key]
    return None, None


def _status(entry: Mapping[str, Any]) -> tuple[bool, str | None]:
    """(succeeded, why not). Unknown statuses such as GNS3's "started" are not failures."""
    status = str(entry.get("status", "")).strip().casefold()
    if status in _PARTIAL_WORDS:
        return False, f"partial success (status {entry['status']!r})"
    if status in _FAILURE_WORDS or entry.get("success") is False:
        return False, None
    _, error = _first(entry, ("error",))
    return error is None, None


def _dict_item(entry: Mapping[str, Any], index: int) -> tuple[ResponseItem, dict[str, Any]]:
    """One item plus the keys it could not hold (the caller keeps those in metadata)."""
    id_key, item_id = _first(entry, _ID_KEYS)
    name_key, name = _first(entry, _NAME_KEYS)
    result_key, result = _first(entry, _RESULT_KEYS)
    ok, why = _status(entry)
    used = {id_key, name_key, result_key, "success"}
    if entry.get("status") in ("success", "failed"):  # anything else ("started", ...) is kept
        used.add("status")
    ident = _text(item_id if item_id is not None else name if name is not None else index)
    item = ResponseItem(
        id=ident,
        name=_text(name) if name is not None else ident,
        status="success" if ok else "failed",
    )
    if not ok:
        error_key, error = _first(entry, _ERROR_KEYS)
        used.add(error_key)
        item["error"] = (
            "; ".join(filter(None, (why, _text(error) if error is not None else ""))) or "failed"
        )
    rest = {k: v for k, v in entry.items() if k not in used}
    if result_key is not None:
        item["result"] = _text(result)
    elif ok and rest:
        item["result"], rest = _text(rest), {}
    return item, rest


def _items(entries: Sequence[Any], tool_name: str) -> tuple[list[ResponseItem], dict[str, Any]]:
    items: list[ResponseItem] = []
    extra: dict[str, Any] = {}
    for index, entry in enumerate(entries):
        if isinstance(entry, Mapping):
            item, rest = _dict_item(entry, index)
            if rest:
                extra[item["id"]] = rest
        else:
            name = tool_name or "output"
            item = ResponseItem(id=str(index), name=name, status="success", result=_text(entry))
        items.append(item)
    return items, extra


def _parse_text(raw: str) -> Any:
    """JSON first, then a Python literal (old tools returned repr()); otherwise the text."""
    for parse in (json.loads, ast.literal_eval):
        try:
            return parse(raw)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
    return raw


def _from_mapping(raw: Mapping[str, Any], tool_name: str) -> StandardResponse:
    list_key = next((k for k in _LIST_KEYS if isinstance(raw.get(k), list)), None)
    if list_key is None and not any(k in raw for k in (*_NAME_KEYS, *_ID_KEYS, *_RESULT_KEYS)):
        error_key, error = _first(raw, ("error",))
        if error is not None or str(raw.get("status", "")).casefold() in _FAILURE_WORDS:
            message = _text(error) if error is not None else _text(raw.get("message", "failed"))
            rest = {k: v for k, v in raw.items() if k not in (error_key, "success")}
            return build_response([], error=message, metadata=_metadata(rest, tool_name))
    if list_key is None:
        items, extra = _items([raw], tool_name)
        return build_response(items, metadata=_metadata({}, tool_name, extra))
    items, extra = _items(raw[list_key], tool_name)
    rest = {k: v for k, v in raw.items() if k not in (list_key, "error", *_COUNT_KEYS)}
    reported = {k: raw[k] for k in _COUNT_KEYS if k in raw}
    metadata = _metadata(rest, tool_name, extra, reported)
    error = raw.get("error")
    return build_response(items, error=_text(error) if error else None, metadata=metadata)


def _metadata(
    rest: Mapping[str, Any],
    tool_name: str,
    extra: Mapping[str, Any] | None = None,
    reported: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    nested = rest.get("metadata")
    metadata = {**(nested if isinstance(nested, Mapping) else {})}
    metadata.update({k: v for k, v in rest.items() if k != "metadata" or nested is None})
    if tool_name:
        metadata.setdefault("tool_name", tool_name)
    if extra:
        metadata["extra"] = dict(extra)
    if reported:
        metadata["reported_counts"] = dict(reported)
    return metadata


def normalize_tool_response(raw: Any, tool_name: str = "") -> StandardResponse:
    """Any tool output -> the standard response, losing nothing (see the module docstring)."""
    if isinstance(raw, bytes):
        raw = raw.decode("utf-8", "replace")
    if isinstance(raw, str):
        parsed = _parse_text(raw)
        if isinstance(parsed, list | dict):
            return normalize_tool_response(parsed, tool_name)
        if not raw.strip():
            return build_response([], metadata=_metadata({}, tool_name))
        items, _ = _items([raw], tool_name)
        return build_response(items, metadata=_metadata({"format": "text"}, tool_name))
    if raw is None:
        return build_response([], metadata=_metadata({}, tool_name))
    if isinstance(raw, Mapping):
        return _from_mapping(raw, tool_name)
    if isinstance(raw, list | tuple):
        items, extra = _items(list(raw), tool_name)
        return build_response(items, metadata=_metadata({}, tool_name, extra))
    items, _ = _items([raw], tool_name)
    return build_response(items, metadata=_metadata({}, tool_name))
