"""The standard response and the lossless normalizer of old tool outputs (seed 000)."""

from __future__ import annotations

from typing import Any

import pytest

from workflow.model import ResponseItem
from workflow.responses import build_response, normalize_tool_response


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


@pytest.mark.parametrize(
    ("raw", "counts", "statuses"),
    [
        (
            [
                {"device_name": "R1", "status": "success", "output": "ok"},
                {"device_name": "R2", "status": "error", "error": "refused"},
            ],
            (False, 2, 1, 1),
            ["success", "failed"],
        ),
        (
            {"results": [{"name": "R1", "status": "ok", "result": "x"}]},
            (True, 1, 1, 0),
            ["success"],
        ),
        (
            {"nodes": [{"name": "R1", "node_id": "n1", "status": "started"}], "total_nodes": 7},
            (True, 1, 1, 0),
            ["success"],
        ),
        (
            '[{"name": "R1", "status": "partial_success", "output": "half"}]',
            (False, 1, 0, 1),
            ["failed"],
        ),
        ("[{'name': 'R1', 'status': 'success', 'output': 'ok'}]", (True, 1, 1, 0), ["success"]),
        (
            {
                "success": True,
                "total": 5,
                "successful": 5,
                "failed": 0,
                "data": [{"id": "R1", "name": "R1", "status": "failed", "error": "x"}],
            },
            (False, 1, 0, 1),
            ["failed"],
        ),
        ({"error": "Invalid project_id"}, (False, 0, 0, 0), []),
        ({"status": "error", "message": "GNS3 is down"}, (False, 0, 0, 0), []),
        ("plain text output", (True, 1, 1, 0), ["success"]),
        ([{"name": "R1", "success": False}], (False, 1, 0, 1), ["failed"]),
    ],
)
def test_normalize_recomputes_counts(
    raw: Any, counts: tuple[bool, int, int, int], statuses: list[str]
) -> None:
    response = normalize_tool_response(raw, "tool")
    assert (
        response["success"],
        response["total"],
        response["successful"],
        response["failed"],
    ) == counts
    assert [item["status"] for item in response["data"]] == statuses
    assert response["metadata"]["version"] == "1.0"


def test_error_dict_stays_an_error() -> None:
    response = normalize_tool_response({"status": "error", "message": "GNS3 is down"})
    assert response["error"] == "GNS3 is down" and response["success"] is False


def test_partial_success_keeps_its_output_and_says_why() -> None:
    [item] = normalize_tool_response(
        [{"name": "R1", "status": "partial_success", "output": "half"}]
    )["data"]
    assert item["result"] == "half" and "partial success" in item["error"]


def test_nothing_is_lost() -> None:
    raw = {
        "nodes": [
            {"name": "R1", "node_id": "n1", "status": "started", "console": 5000},
            {"name": "R2", "output": "x", "uptime": 9},
        ],
        "total_nodes": 2,
        "project_id": "p1",
    }
    response = normalize_tool_response(raw, "list_nodes")
    assert (
        '"console": 5000' in response["data"][0]["result"]
        and '"status": "started"' in response["data"][0]["result"]
    )
    assert response["metadata"]["extra"] == {"R2": {"uptime": 9}}
    assert response["metadata"]["project_id"] == "p1"
    assert response["metadata"]["reported_counts"] == {"total_nodes": 2}
    assert response["metadata"]["tool_name"] == "list_nodes"


def test_plain_text_is_kept_as_a_result() -> None:
    response = normalize_tool_response("R1# show version\nCisco IOS", "show")
    assert response["data"][0]["result"] == "R1# show version\nCisco IOS"
