"""Content hashes: what a button shows is what its hash covers, byte for byte."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

__all__ = ["canonical_json", "content_sha256", "lines_sha256"]


def canonical_json(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def content_sha256(value: Any) -> str:
    """sha256 of the canonical JSON form of `value` (dict key order does not matter)."""
    return hashlib.sha256(canonical_json(value)).hexdigest()


def lines_sha256(lines: Sequence[str]) -> str:
    """sha256 of configuration lines as sent to a device (newline-joined)."""
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()
