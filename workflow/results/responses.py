"""The standard response format of labbot's results (a push: one item per device).

`success` is true only when nothing failed and there is no global error; counts are always
computed from `data`, never given.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from workflow.model import ResponseItem, StandardResponse

__all__ = ["build_response"]

VERSION = "1.0"


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
