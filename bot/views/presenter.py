"""Turn typed gates, push progress and results into neutral chat messages. Pure."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any, Literal

from adapters.chat import Button, CodeBlock, Message, button_value
from base.grammar import model_of
from base.masking import SecretMask
from base.vocabulary import GateName, Status, stamp
from bot import messages
from bot.views.code_blocks import sections_message
from bot.views.device_lines import device_lines_sections
from bot.views.ending import ending_line, newer_line, rollback_line, target_problem
from bot.views.lab_twin import disagreement_note, lab_twin_note, lab_twin_sections
from bot.views.landed import broke_off_gate
from bot.views.landing import (
    changed_note,
    landed_outside_gate,
    landing_note,
    missing_interfaces_note,
    models_note,
)
from bot.views.not_pushed import not_pushed_gate
from bot.views.postcheck import item_body, progress_detail
from bot.views.targets import devices_with_reasons, targets_sections
from bot.views.template import post_checks_section, schema_text
from workflow.api import Finished, PendingGate, RollbackGate, TargetsGate, TemplateGate
from workflow.library.compose import part_label
from workflow.model import LLMProgress, PushProgress, StandardResponse
from workflow.phases.previews import DevicePreview
from workflow.phases.reviews import ParamsReview, RollbackReview, TemplateReview
from workflow.results.feedback import FeedbackProblem

__all__ = [
    "llm_progress",
    "present_feedback_problem",
    "present_gate",
    "present_progress",
    "present_result",
    "present_status",
]


def gate_buttons(gate: GateName, interrupt_id: str, sha256: str) -> tuple[Button, ...]:
    value = button_value(interrupt_id, sha256)
    if gate == "rollback":  # nothing to modify: undo the change, or keep it as pushed
        return (
            Button(
                messages.BUTTON_ROLL_BACK, "approve", "danger", value, messages.ROLLBACK_CONFIRM
            ),
            Button(messages.BUTTON_KEEP, "cancel", "default", value),
        )
    if gate == "targets":  # confirm the devices, or not: a Modify is a new request
        return (
            Button(messages.BUTTON_CONFIRM, "approve", "primary", value),
            Button(messages.BUTTON_CANCEL, "cancel", "danger", value),
        )
    if gate == "params":
        first = Button(
            messages.BUTTON_EXECUTE, "approve", "primary", value, messages.EXECUTE_CONFIRM
        )
    else:
        first = Button(messages.BUTTON_APPROVE, "approve", "primary", value)
    return (
        first,
        Button(messages.BUTTON_MODIFY, "modify", "default", value),
        Button(messages.BUTTON_CANCEL, "cancel", "danger", value),
    )


def present_gate(gate: PendingGate, mask: SecretMask) -> Message:
    """The gate's message with its buttons; secret values masked (`mask`) in every line."""
    if isinstance(gate, TargetsGate):
        text, sections = targets_sections(gate.change_id, gate.payload)
    elif isinstance(gate, TemplateGate):
        text, sections = _template_sections(gate.change_id, gate.payload, mask)
    elif isinstance(gate, RollbackGate):
        text, sections = _rollback_sections(gate.change_id, gate.payload, mask)
    else:
        text, sections = _params_sections(gate.change_id, gate.payload, mask)
    expires = (
        messages.GATE_EXPIRES.format(at=_short_time(gate.expires_at)) if gate.expires_at else ""
    )
    text += messages.GATE_FOOTNOTE.format(expires=expires, sha=gate.sha256[:12])
    buttons = gate_buttons(gate.gate, gate.interrupt_id, gate.sha256)
    return sections_message(text, sections, buttons=buttons, key=gate.interrupt_id)


def _template_sections(
    change_id: str, payload: TemplateReview, mask: SecretMask
) -> tuple[str, list[tuple[str, str, str]]]:
    targets = devices_with_reasons(payload["targets"], payload.get("chosen", {}))
    text = messages.TEMPLATE_GATE.format(
        change_id=change_id,
        description=payload["description"],
        name=payload["name"],
        source=payload["source"],
        targets=targets or messages.NO_DEVICE,
    )
    text += _library_notes(payload)
    sections: list[tuple[str, str, str]] = []
    for family, source in payload["templates"].items():
        title = messages.SECTION_TEMPLATE.format(family=family)
        sections.append((title, mask.config(source), "jinja"))
    schema = schema_text(payload["params_schema"], mask, payload.get("requested"))
    sections.append((messages.SECTION_PARAMETERS, schema, "yaml"))
    if payload.get("sections"):
        sections.append((messages.SECTION_MAY_TOUCH, "\n".join(payload["sections"]), "text"))
    if payload.get("allow"):
        sections.append((messages.SECTION_MAY_BREAK, "\n".join(payload["allow"]), "text"))
    elif payload["source"] == "rollback":
        text += messages.RESTORES
    sections.extend(post_checks_section(payload.get("post_checks")))
    for family, facts in payload.get("example_facts", {}).items():
        title = messages.SECTION_EXAMPLE_FACTS.format(family=family)
        sections.append((title, _params_text(facts, mask), "yaml"))
    for family, lines in payload["example_rendering"].items():
        title = messages.SECTION_EXAMPLE_RENDERING.format(family=family)
        sections.append((title, mask.config("\n".join(lines)), "text"))
    for family, test in payload.get("template_test", {}).items():
        if test["errors"]:
            title = messages.SECTION_TEST_FAILED.format(device=test["device"], family=family)
            sections.append((title, mask.config("\n".join(test["errors"])), "text"))
    return text, sections


def _library_notes(payload: TemplateReview) -> str:
    """Which templates (and versions) the change uses, the template test, newer versions."""
    notes = ""
    parts = payload.get("parts", [])
    if len(parts) > 1 or any(p["version"] is not None for p in parts):
        shown = " + ".join(f"{part_label(p)} sha256 {p['sha256'][:12]}" for p in parts)
        notes += messages.USES_TEMPLATES.format(templates=shown)
    for family, test in payload.get("template_test", {}).items():
        on = {"device": test["device"], "family": family, "lines": test["lines"]}
        if skipped := test.get("skipped"):
            # a sentence, in a gate shown before the test said why with a kind
            why = messages.TEMPLATE_TEST_SKIPPED_WHY.get(skipped) or skipped
            seconds = test.get("seconds", 0)
            notes += messages.TEMPLATE_TEST_SKIPPED.format(
                **on, why=why.format(platform=test["platform"], seconds=seconds)
            )
        elif test["errors"]:
            notes += messages.TEMPLATE_TEST_FAILED.format(**on, refused=len(test["errors"]))
        else:
            notes += messages.TEMPLATE_TEST_PASSED.format(**on)
        notes += messages.TEMPLATE_MODEL.format(model=model_of(family))
    return notes + _newer_note(payload) + _tokens_note(payload)


def _tokens_note(payload: TemplateReview) -> str:
    tokens = payload.get("tokens")
    if not tokens:
        return ""
    how = messages.TOKENS_ESTIMATED if tokens.get("estimated") else messages.TOKENS_MEASURED
    return messages.TEMPLATE_TOKENS.format(total=tokens["total_tokens"], how=how)


def _newer_note(payload: TemplateReview | ParamsReview) -> str:
    newer = payload.get("newer_versions", {})
    if not newer:
        return ""
    listed = ", ".join(f"{name}@{version}" for name, version in newer.items())
    return messages.NEWER_AT_GATE.format(versions=listed)


def _hit_rows(
    devices: Mapping[str, DevicePreview], key: Literal["blocked", "allowed"], mask: SecretMask
) -> list[str]:
    """One row per deny-list hit of the devices' previews (refused, or allowed by the template)."""
    return [
        f"{name}: {mask.config(entry['line'].strip())!r} — {entry['reason']}"
        for name, device in devices.items()
        for entry in device.get(key, [])
    ]


def _params_sections(
    change_id: str, payload: ParamsReview, mask: SecretMask
) -> tuple[str, list[tuple[str, str, str]]]:
    devices = payload["devices"]
    line_count = sum(len(d["lines"]) for d in devices.values())
    text = messages.PARAMS_GATE.format(change_id=change_id, devices=len(devices), lines=line_count)
    blocked = _hit_rows(devices, "blocked", mask)
    if blocked:
        text += messages.DENY_LIST_AT_GATE.format(count=len(blocked))
    text += changed_note(devices, mask) + landing_note(devices) + models_note(devices)
    text += missing_interfaces_note(devices) + lab_twin_note(payload)
    text += _newer_note(payload)
    text += "".join(
        messages.FACTS_FROM_CONFIG.format(device=name, why=device["state_unread"])
        for name, device in devices.items()
        if "state_unread" in device
    )
    drifted = payload.get("drifted") or {}
    if drifted:
        text += _drift_note(drifted, payload.get("pushed"))
    sections: list[tuple[str, str, str]] = [
        (messages.DRIFT_SECTION.format(device=name), mask.config(diff), "diff")
        for name, diff in sorted(drifted.items())
    ]
    sections += lab_twin_sections(payload)
    if blocked:
        sections.append((messages.SECTION_BLOCKED, "\n".join(blocked), "text"))
    allowed = _hit_rows(devices, "allowed", mask)
    if allowed:
        sections.append((messages.SECTION_ALLOWED, "\n".join(allowed), "text"))
    for name, device in devices.items():
        params = _params_text(device["params"], mask)
        sections.append((messages.SECTION_DEVICE_PARAMS.format(device=name), params, "yaml"))
        if device.get("facts"):
            facts = _params_text(device.get("facts", {}), mask)
            sections.append((messages.SECTION_DEVICE_FACTS.format(device=name), facts, "yaml"))
        sections.extend(device_lines_sections(name, device, mask))
    return text, sections


def _drift_note(drifted: Mapping[str, str], pushed: StandardResponse | None) -> str:
    """Which devices the push left alone, and how the others fared."""
    others = [item for item in (pushed["data"] if pushed else []) if item["name"] not in drifted]
    marks = ", ".join(f"{_icon(item)} {item['name']}" for item in others)
    return messages.DRIFTED.format(devices=", ".join(sorted(drifted)), others=marks or "none")


def _rollback_sections(
    change_id: str, payload: RollbackReview, mask: SecretMask
) -> tuple[str, list[tuple[str, str, str]]]:
    """The failed post-checks with their evidence (or the lines that landed outside the
    sections), the devices not pushed and why, and per device the lines that undo the change."""
    if payload.get("outside"):
        text, sections = landed_outside_gate(change_id, payload, mask)
    elif not payload["post_checks"]["total"]:  # the push broke off: no post-check ran
        text, sections = broke_off_gate(change_id, payload, mask)
    else:
        text, sections = _checks_failed_sections(change_id, payload, mask)
    note, drifted = not_pushed_gate(payload, mask)
    return text + note, drifted + sections


def _checks_failed_sections(
    change_id: str, payload: RollbackReview, mask: SecretMask
) -> tuple[str, list[tuple[str, str, str]]]:
    """The failed post-checks with their evidence, per device the lines that undo them."""
    checks = payload["post_checks"]
    failed = [item for item in checks["data"] if item["status"] != "success"]
    text = messages.ROLLBACK_GATE.format(
        change_id=change_id,
        failed=", ".join(item["name"] for item in failed),
        total=checks["total"],
    ) + disagreement_note(checks)
    sections = [
        (
            messages.SECTION_POST_CHECKS.format(icon=_icon(item), device=item["name"]),
            item_body(item),
            "text",
        )
        for item in checks["data"]
    ]
    for name, device in payload["devices"].items():
        lines = mask.config("\n".join(device["lines"]))
        sections.append((messages.SECTION_ROLLBACK_LINES.format(device=name), lines, "text"))
    if payload.get("allow"):
        sections.append((messages.SECTION_MAY_BREAK, "\n".join(payload["allow"]), "text"))
    return text, sections


def _icon(item: Mapping[str, Any]) -> str:
    return "✓" if item["status"] == "success" else "✗"


def _params_text(params: Mapping[str, Any], mask: SecretMask) -> str:
    """One `key: value` line per parameter, values as compact JSON, secret values masked
    (a rollback's lines, a `password` parameter)."""
    return "\n".join(
        f"{key}: {json.dumps(mask.param(key, value), separators=(', ', ': '), ensure_ascii=False)}"
        for key, value in sorted(params.items())
    )


def _short_time(iso: str) -> str:
    try:
        return stamp(datetime.fromisoformat(iso), seconds=False)
    except ValueError:
        return iso


def present_feedback_problem(
    change_id: str, feedback: str, problem: FeedbackProblem, mask: SecretMask
) -> Message:
    """A Modify that could not be read without an LLM: why, and how to say it at this gate."""
    lines = [
        messages.FEEDBACK_UNREAD.format(
            feedback=mask.said(feedback), gate=problem.gate, change_id=change_id
        ),
        *(f"- {reason}" for reason in problem.reasons),
        *([f"- {target_problem(problem.targets)}"] if problem.targets else []),
    ]
    how = messages.FEEDBACK_PARAMS if problem.gate == "params" else messages.FEEDBACK_TEMPLATE
    params = ", ".join(problem.params)
    lines.append(how.format(template=problem.template, params=params, example=problem.example))
    return Message("\n".join(lines), level="warning")


STATUS_ICON = {"started": "⏳", "done": "✓", "failed": "✗"}


def llm_progress(event: LLMProgress) -> str:
    """`(the model has been writing for 12 s, about 340 tokens so far)`."""
    tokens = event.output_tokens
    so_far = messages.LLM_TOKENS_SO_FAR.format(tokens=tokens) if tokens else ""
    return messages.LLM_WRITING.format(seconds=event.elapsed_seconds, tokens=so_far)


def present_progress(change_id: str, progress: Mapping[str, PushProgress]) -> Message:
    """Each device's row; the header counts the devices the push finished, or once post-checks
    report, the devices they finished checking (not the push's count going down again)."""
    checks = [p for p in progress.values() if p.check is not None]
    counted = checks or list(progress.values())
    done = sum(1 for p in counted if p.stage != "started")
    total = max((p.total for p in counted), default=len(progress))
    header = messages.CHECKS_PROGRESS if checks else messages.PUSH_PROGRESS
    rows = [
        f"{STATUS_ICON[p.stage]} {name} {progress_detail(p)}".rstrip()
        for name, p in progress.items()
    ]
    return Message(
        text=header.format(change_id=change_id, done=done, total=total),
        blocks=(CodeBlock("\n".join(rows), "text"),),
        key=f"progress:{change_id}",
    )


def present_status(finished: Finished, mask: SecretMask) -> Message:
    """How the thread's last change ended, in one message (the `status` command)."""
    return _ending(finished.change_id, finished.status, ending_line(finished, mask))


def _ending(change_id: str, status: Status, message: str) -> Message:
    title = messages.FINISHED_TITLE[status].format(change_id=change_id)
    return Message(
        text=f"{title}: {message}" if message else f"{title}.",
        level="success" if status == "done" else "warning",
    )


def present_result(finished: Finished, mask: SecretMask) -> Message:
    result = finished.result
    if result is None:
        return _ending(finished.change_id, finished.status, ending_line(finished, mask))
    title = messages.FINISHED_TITLE[finished.status].format(change_id=finished.change_id)
    summary = messages.RESULT_SUMMARY.format(
        title=title, ok=result["successful"], failed=result["failed"], total=result["total"]
    )
    newer = newer_line(finished.newer_versions, finished.templates)
    for note in [newer, rollback_line(finished.rollback, mask)]:
        summary += f"\n{note}" if note else ""
    if result.get("error"):
        summary += f"\n{result['error']}"
    summary += disagreement_note(result.get("metadata", {}).get("post_checks"))
    sections = []
    for item in result["data"]:
        body = item_body(item)
        title = f"{_icon(item)} {item['name']}"
        sections.append((title, mask.config(body) or messages.NO_OUTPUT, "text"))
    return sections_message(summary, sections, level="success" if result["success"] else "error")
