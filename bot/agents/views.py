"""What an AI agent is given (the MCP tools' answers), in the standard response format: the
lab, the template library, and where a change stands. Pure: built from what the bot read."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from base.masking import SecretMask
from storage.audit_records import ChangeSummary
from workflow.api import Finished, PendingGate
from workflow.library.catalog import LibraryTemplate
from workflow.model import Device, Link, SavedTemplate, StandardResponse, UnusableNode
from workflow.results.responses import build_response
from workflow.results.targets import device_kinds

Json = dict[str, Any]


def answer(items: Sequence[Json], *, error: str | None = None, **metadata: Any) -> Json:
    """A standard response (counts from the items) as the JSON object a tool returns."""
    response: StandardResponse = build_response(items, error=error, metadata=metadata)  # type: ignore[arg-type]
    return dict(response)


def refused(reason: str, **metadata: Any) -> Json:
    """The whole call refused: no item, the reason as the error."""
    return answer([], error=reason, **metadata)


def lab_answer(
    devices: Sequence[Device],
    links: Sequence[Link],
    answers: Mapping[str, str | None],
    unusable: Sequence[UnusableNode],
) -> Json:
    """One item per device (failed when it does not answer now), the links in metadata."""
    kinds = device_kinds(list(devices))
    items = []
    for device in devices:
        why = answers.get(device.name)
        item: Json = {
            "id": device.name,
            "name": device.name,
            "status": "success" if why is None else "failed",
            "platform": device.platform,
            "kind": kinds[device.name][0] or "unknown",
            "transport": device.transport,
        }
        item |= {"result": "reachable"} if why is None else {"error": f"unreachable: {why}"}
        items.append(item)
    return answer(
        items,
        links=[dict(link) for link in links],
        left_out={node.name: node.reason for node in unusable},
    )


def template_item(template: LibraryTemplate | SavedTemplate, mask: SecretMask) -> Json:
    """A template as an agent plans with it: its parameters (defaults masked), sections, the
    vendor families it is written for and, for a saved version, its sha256."""
    if isinstance(template, SavedTemplate):
        ref, source, sha256 = f"{template.name}@{template.version}", "saved", template.sha256
    else:
        ref, source, sha256 = template.name, "builtin", template.as_parts()[0]["sha256"]
    params = {
        name: {k: mask.param(name, v) if k == "default" else v for k, v in spec.items()}
        for name, spec in template.params_schema.items()
    }
    return {
        "id": ref,
        "name": template.name,
        "status": "success",
        "result": template.description,
        "source": source,
        "sha256": sha256,
        "params": params,
        "sections": list(template.sections),
        "families": list(template.templates),
        "post_checks": bool(template.post_checks),
    }


def open_answer(
    change: ChangeSummary, gate: PendingGate, link: str, may_decide: str, waiting: str
) -> Json:
    """A change waiting at a gate: the step, who may decide, what it still needs, expiry."""
    return answer(
        [],
        change_id=change.change_id,
        state="open",
        step=gate.gate,
        may_decide=may_decide,
        waiting_for=waiting,
        expires_at=gate.expires_at,
        thread=link,
        approvers=_approvers(change),
    )


def running_answer(change: ChangeSummary, link: str) -> Json:
    """A change between its steps: its parameters being prepared after the template gate, or
    its push (and post-checks) running after the push gate."""
    pushing = any(g.resolution for g in change.gates if g.gate in ("params", "rollback"))
    return answer(
        [],
        change_id=change.change_id,
        state="running",
        step="push" if pushing else "planning",
        thread=link,
        approvers=_approvers(change),
    )


def ended_answer(
    change: ChangeSummary, finished: Finished | None, link: str, mask: SecretMask
) -> Json:
    """A change that ended: one item per device pushed (its result and post-checks, the
    device's words with their secret values masked, as chat shows them), the approvers of
    each gate and the sha256 of every template it used."""
    result = finished.result if finished is not None else None
    pushed = {p.device: p for p in change.pushes}
    items: list[Json] = []
    for item in result["data"] if result is not None else []:
        shown: Json = {k: item[k] for k in ("id", "name", "status") if k in item}
        shown |= {k: mask.config(item[k]) for k in ("result", "error") if k in item}
        shown["pushed"] = item["name"] in pushed and pushed[item["name"]].status == "success"
        if "checks" in item:
            shown["post_checks"] = item["checks"]
        if item["name"] in pushed:
            shown["lines_sha256"] = pushed[item["name"]].lines_sha256
        items.append(shown)
    status = finished.status if finished is not None else _last_event(change)
    error = None if status == "done" else f"the change ended {status}"
    return answer(
        items,
        error=error if not items else None,
        change_id=change.change_id,
        state=status,
        thread=link,
        approvers=_approvers(change),
        templates=[
            {"name": p["name"], "version": p["version"], "sha256": p["sha256"]}
            for p in (finished.templates if finished is not None else [])
        ],
    )


def _approvers(change: ChangeSummary) -> dict[str, list[str]]:
    """Per gate, who approved it (name and id)."""
    return {
        gate.gate: [f"{v.actor_name} ({v.actor_id})" for v in gate.votes if v.choice == "approve"]
        for gate in change.gates
    }


def _last_event(change: ChangeSummary) -> str:
    return change.events[-1].status if change.events else "unknown"
