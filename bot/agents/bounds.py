"""Bounds on what an AI agent sends, applied before anything of it is stored, echoed or logged.

A call's arguments (strings, lists, nested values) are measured as a whole against
LABBOT_MAX_REQUEST_CHARS; a device, template, change or lab named longer than MAX_NAME_CHARS, or a
device named by nothing but blanks, is refused. A call refused (here, by the caps or by the tool)
is kept only as its `trace`: its size, sha256 and a short masked head, so it costs the audit a
constant; an agent-chosen change id reaches the clear `change_id` column only as its sha256.
Pure.
"""

from __future__ import annotations

import hashlib
from typing import Any

from base.masking import SecretMask
from bot import messages
from workflow.hashing import canonical_json

Json = dict[str, Any]
MAX_NAME_CHARS = 128  # a device, template, change id or lab (a DNS name's label stops at 63)
HEAD_CHARS = 32  # what a refused call's trace shows of what came
SHOWN_CHARS = 40  # what a refusal echoes of a name too long
KEPT_REASON_CHARS = 600  # the longest refusal reason or outcome an audit row keeps
NAMED = ("template", "change_id", "lab")  # arguments that name one thing
HASHED = "sha256:"


def size_of(value: Any) -> int:
    """A value's size as the limit counts it: a string its characters, a list or mapping its
    members' sizes and one for each member, anything else one."""
    if isinstance(value, str):
        return len(value)
    if isinstance(value, dict):
        return sum(len(str(key)) + size_of(item) + 1 for key, item in value.items())
    if isinstance(value, list | tuple):
        return sum(size_of(item) + 1 for item in value)
    return 1


def refuse_arguments(arguments: Json, max_chars: int) -> str | None:
    """Why a call's arguments are not taken in (nothing of them stored or echoed but their
    size), or None: too large as a whole, a name too long, a device name blank."""
    size = size_of(arguments)
    if size > max_chars:
        return messages.AGENT_TOO_LARGE.format(size=size, limit=max_chars)
    named = [arguments.get(name) for name in NAMED]
    devices = arguments.get("devices") or []
    for name in [*devices, *named]:
        if isinstance(name, str) and len(name) > MAX_NAME_CHARS:
            return messages.AGENT_NAME_TOO_LONG.format(
                name=cut(name), size=len(name), limit=MAX_NAME_CHARS
            )
    if any(not isinstance(name, str) or not name.strip() for name in devices):
        return messages.AGENT_BLANK_DEVICE
    return None


def trace(arguments: Json, mask: SecretMask) -> Json:
    """What the audit keeps of a refused call's arguments, whatever their size: how large they
    were, their sha256 and their first characters with secret values masked."""
    text = canonical_json(arguments)
    head = mask.config(text[: HEAD_CHARS * 4].decode(errors="ignore")[:HEAD_CHARS])
    return {
        "not_kept": {
            "chars": size_of(arguments),
            "sha256": hashlib.sha256(text).hexdigest(),
            "head": head[: HEAD_CHARS * 2],
        }
    }


def change_column(ours: object, asked: object) -> str | None:
    """The call's clear `change_id`: the id of a change labbot answered about, else the
    agent's own words only as their sha256 (they may be anything), else None."""
    if isinstance(ours, str) and ours:
        return ours
    if isinstance(asked, str) and asked:
        return HASHED + hashlib.sha256(asked.encode(errors="replace")).hexdigest()
    return None


def cut(text: str, limit: int = SHOWN_CHARS) -> str:
    """`text` as a refusal may echo it: its first `limit` characters, `…` when there was more."""
    return text if len(text) <= limit else text[:limit] + "…"
