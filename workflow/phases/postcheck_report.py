"""Post-check results in the standard response: pure functions the graph's nodes call.

The change's response keeps one item per device. A device whose push succeeded carries its
post-check outcome too (`checks`, typed: bot/views/postcheck.py words it); failed ones turn the item
into a failure, its push output kept in `result`. The post-check
response itself goes in `metadata["post_checks"]`, so nothing is lost.
"""

from __future__ import annotations

from collections.abc import Mapping

from workflow.model import ResponseItem, StandardResponse, Topology
from workflow.phases.previews import DevicePreview
from workflow.postcheck_spec import PostChecks
from workflow.postchecks.evaluate import Expectation, expectations
from workflow.results.responses import build_response

__all__ = ["check_failures", "not_pushed", "planned_expectations", "with_post_checks"]


def planned_expectations(
    checks: PostChecks,
    previews: Mapping[str, DevicePreview],
    pushed: list[str],
    topology: Topology,
) -> dict[str, list[Expectation]]:
    """What each device pushed without failure must show; every target's params count (a
    neighbour's announced networks, its link addresses)."""
    params = {name: preview["params"] for name, preview in previews.items()}
    return {name: expectations(checks["checks"], name, params, topology) for name in pushed}


def with_post_checks(push: StandardResponse, checks: StandardResponse) -> StandardResponse:
    """The push response with each device's post-check outcome merged in (see the module)."""
    outcome = {item["name"]: item for item in checks["data"]}
    items: list[ResponseItem] = []
    for item in push["data"]:
        check = outcome.get(item["name"])
        merged = ResponseItem(**item)
        if check is not None:
            merged = _merged(merged, check)
        items.append(merged)
    metadata = {**push.get("metadata", {}), "post_checks": checks}
    return build_response(items, error=push.get("error"), metadata=metadata)


def check_failures(checks: StandardResponse) -> list[ResponseItem]:
    """The devices that failed their post-checks, with their evidence."""
    return [item for item in checks["data"] if item["status"] != "success"]


def not_pushed(push: StandardResponse, checks: StandardResponse) -> list[ResponseItem]:
    """The devices the push did not change as planned (changed since the preview, or their push
    failed): failed, and not post-checked (the checks read only the devices pushed)."""
    checked = {item["name"] for item in checks["data"]}
    return [i for i in push["data"] if i["status"] != "success" and i["name"] not in checked]


def _merged(item: ResponseItem, check: ResponseItem) -> ResponseItem:
    if "checks" in check:
        item["checks"] = check["checks"]
    if check["status"] == "success":
        output = "\n".join(filter(None, [item.get("result"), check.get("result")]))
        if output:
            item["result"] = output
        return item
    item["status"] = "failed"
    if "error" in check:
        item["error"] = check["error"]
    return item
