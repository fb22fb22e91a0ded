"""The standard response format: counts come from the items, a global error is never success."""

from __future__ import annotations

from workflow.model import ResponseItem
from workflow.results.responses import build_response


def test_build_response_counts_from_items() -> None:
    items = [
        ResponseItem(id="R1", name="R1", status="success", result="ok"),
        ResponseItem(id="R2", name="R2", status="failed", error="Connection refused"),
    ]
    response = build_response(items, metadata={"tool_name": "push"})
    assert (response["success"], response["total"], response["successful"], response["failed"]) == (
        False,
        2,
        1,
        1,
    )
    assert response["metadata"] == {"tool_name": "push", "version": "1.0"}
    assert "error" not in response


def test_global_error_is_never_success() -> None:
    response = build_response([], error="Invalid project_id format")
    assert response["success"] is False and response["error"] == "Invalid project_id format"
