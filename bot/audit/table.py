"""Audit records as a table, CSV or JSON: the same rows on the CLI and in chat. Pure."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import textwrap
from collections.abc import Sequence
from datetime import datetime
from typing import Any, Literal

from rich.console import Console
from rich.table import Table

from base.masking import SecretMask
from base.vocabulary import stamp, table_stamp
from bot import messages
from storage.audit_records import (
    AuditEntry,
    ChainBreak,
    ChangeRecord,
    ChangeSummary,
    GateSummary,
    PushRow,
    Refusal,
    TemplateRef,
    Vote,
)

__all__ = ["Format", "chain_break", "render_chat_table", "render_entries", "render_summary"]

Format = Literal["table", "csv", "json"]


def _fields(entry: Any) -> dict[str, Any]:
    if dataclasses.is_dataclass(entry) and not isinstance(entry, type):
        return dataclasses.asdict(entry)
    return dict(entry)


def _row(entry: Any, mask: SecretMask) -> dict[str, Any]:
    return {key: _plain(value) for key, value in _with_summary(entry, mask).items()}


def _with_summary(entry: Any, mask: SecretMask) -> dict[str, Any]:
    """The entry's fields, an audit entry's one-line summary before its sha256."""
    if not isinstance(entry, AuditEntry):
        return _fields(entry)
    fields = _fields(shown_entry(entry, mask))
    shown: dict[str, Any] = {}
    for key, value in fields.items():
        if key == "sha256":
            shown["summary"] = entry_summary(entry, mask)
        shown[key] = value
    return shown


def chain_break(found: ChainBreak | None) -> str:
    """Where and how the audit chain breaks, in one line ("?" when not known)."""
    if found is None:
        return "?"
    problem = messages.CHAIN_BREAK[found.kind].format(
        seq=found.seq, expected=found.expected, head=found.anchored_hash[:16]
    )
    if not found.table:
        return problem
    return messages.CHAIN_BREAK_AT.format(table=found.table, row=found.row_id, problem=problem)


def shown_entry(entry: AuditEntry, mask: SecretMask) -> AuditEntry:
    """An entry as people read it: what someone typed (a request, a read, a Modify feedback)
    and what a device answered (a push's output) with their secret values masked. The stored
    row keeps them as they were (its hash covers that)."""
    said = entry.kind == "decision"
    detail = mask.said(entry.detail) if said else mask.config(entry.detail)
    checks = mask.config(entry.post_check_detail)
    return dataclasses.replace(
        entry, text=mask.said(entry.text), detail=detail, post_check_detail=checks
    )


def entry_summary(entry: AuditEntry, mask: SecretMask) -> str:
    """What an audit entry says, in one line (the `summary` of tables, CSV and JSON)."""
    entry = shown_entry(entry, mask)
    kind = entry.kind
    if kind == "push":
        return _push_summary(entry)
    if kind == "decision":
        feedback = messages.AUDIT_ENTRY_DETAIL.format(detail=entry.detail) if entry.detail else ""
        choice = messages.AUDIT_CHOICE_WORDS.get((entry.gate, entry.choice), entry.choice)
        return messages.AUDIT_ENTRY["decision"].format(entry=entry, choice=choice, detail=feedback)
    if kind == "event":
        detail = messages.AUDIT_EVENT_DETAIL.format(detail=entry.detail) if entry.detail else ""
        tokens = _tokens(entry.tokens)
        return messages.AUDIT_ENTRY["event"].format(entry=entry, detail=detail + tokens)
    if kind == "template":
        parts = " + ".join(_template_ref(ref) for ref in entry.templates)
        return messages.AUDIT_ENTRY["template"].format(entry=entry, detail=parts)
    return messages.AUDIT_ENTRY[kind].format(entry=entry, detail=entry.detail)


def _tokens(recorded: str) -> str:
    """` (tokens: template 1,200, params 800)` from the canonical JSON an event keeps per stage
    ({"template": {"total_tokens": …}, …}); "" when none was spent or it cannot be read."""
    try:
        stages = json.loads(recorded) if recorded else {}
    except ValueError:
        return ""
    spent = {
        stage: usage.get("total_tokens", 0)
        for stage, usage in (stages.items() if isinstance(stages, dict) else [])
        if isinstance(usage, dict) and usage.get("total_tokens")
    }
    shown = ", ".join(f"{stage} {total:,}" for stage, total in spent.items())
    return messages.AUDIT_EVENT_TOKENS.format(tokens=shown) if shown else ""


def _push_summary(entry: AuditEntry) -> str:
    """The push's own result, then its post-checks' result apart (when any ran)."""
    said = messages.AUDIT_ENTRY["push"].format(entry=entry, detail=_first_line(entry.detail))
    if not entry.post_check:
        return said
    checks = _first_line(entry.post_check_detail)
    return said + messages.AUDIT_ENTRY_POST_CHECK.format(status=entry.post_check, detail=checks)


def _first_line(detail: str) -> str:
    first = detail.splitlines()[0] if detail.strip() else ""
    return messages.AUDIT_ENTRY_DETAIL.format(detail=first) if first else ""


def _template_ref(ref: TemplateRef) -> str:
    version = f"@{ref.version}" if ref.version is not None else ""
    return messages.AUDIT_TEMPLATE_PART.format(ref=ref, version=version, sha=ref.sha256[:12])


def _plain(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat(timespec="seconds")
    if isinstance(value, dict | list | tuple):
        return json.dumps(value, sort_keys=True, default=str)
    return value


def render_entries(
    entries: Sequence[Any],
    fmt: Format,
    mask: SecretMask,
    *,
    width: int = 160,
    wide: bool = False,
) -> str:
    """JSON and CSV carry every field; the table the columns a person reads, its summary
    wrapped to `width` (`wide`: every field, as CSV has them)."""
    if fmt == "json":
        return json.dumps([_row_json(entry, mask) for entry in entries], indent=2, default=str)
    if fmt == "table" and not wide:
        return _readable_table(entries, mask, width)
    rows = [_row(entry, mask) for entry in entries]
    columns = list(rows[0]) if rows else []
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        return out.getvalue()
    return _table(rows, columns, width)


def _readable_table(entries: Sequence[Any], mask: SecretMask, width: int) -> str:
    """seq, time, kind, change, who, gate or device, sha256 on one line each; the summary,
    last, wraps by whole words. Where the fixed columns leave the summary too little room (80
    columns, a pipe), each record is its fixed fields on one line and its summary below it."""
    if not entries:
        return messages.AUDIT_NONE
    rows = [(str(entry.seq), *_chat_row(entry, mask, None)) for entry in entries]
    *fixed, summary = messages.AUDIT_TABLE_COLUMNS
    widths = [max(len(row[i]) for row in [tuple(fixed), *rows]) for i in range(len(fixed))]
    if width - sum(w + 1 for w in widths) < SUMMARY_COLUMNS:
        return _stacked(rows, width)
    table = Table(box=None, show_edge=False, pad_edge=False)
    for column in fixed:
        table.add_column(column, no_wrap=True)
    table.add_column(summary, overflow="fold", ratio=1)
    for row in rows:
        table.add_row(*row)
    return _printed(table, width)


def _stacked(rows: Sequence[tuple[str, ...]], width: int) -> str:
    """Each record's fixed fields on a line, its summary under it, wrapped by whole words."""
    indent = " " * STACK_INDENT
    lines = []
    for *fields, summary in rows:
        lines.append("  ".join(field for field in fields if field))
        wrap = textwrap.wrap(
            summary, max(width, 40), initial_indent=indent, subsequent_indent=indent
        )
        lines.extend(wrap or [indent])
    return "\n".join(lines)


SUMMARY_COLUMNS = 30  # the least room for the summary beside the fixed columns
STACK_INDENT = 4


def _row_json(entry: Any, mask: SecretMask) -> dict[str, Any]:
    row = _with_summary(entry, mask)
    return {k: v.isoformat() if isinstance(v, datetime) else v for k, v in row.items()}


def _table(rows: list[dict[str, Any]], columns: list[str], width: int) -> str:
    if not rows:
        return messages.AUDIT_NONE
    table = Table(*columns, box=None, show_edge=False, pad_edge=False)
    for row in rows:
        table.add_row(*("" if row[c] is None else str(row[c]) for c in columns))
    return _printed(table, width)


def _printed(table: Table, width: int) -> str:
    out = io.StringIO()
    console = Console(file=out, width=width, color_system=None, legacy_windows=False)
    console.print(table)
    return out.getvalue().rstrip()


def render_chat_table(entries: Sequence[Any], mask: SecretMask, *, detail_width: int = 48) -> str:
    """A narrow fixed-width table for a chat code block: one line per record."""
    rows: list[tuple[str, ...]] = [messages.AUDIT_CHAT_COLUMNS]
    rows += [_chat_row(entry, mask, detail_width) for entry in entries]
    widths = [max(len(row[i]) for row in rows) for i in range(len(messages.AUDIT_CHAT_COLUMNS))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)) for row in rows]
    return "\n".join(line.rstrip() for line in lines)


def _chat_row(entry: Any, mask: SecretMask, detail_width: int | None) -> tuple[str, ...]:
    """when, kind, change, who, gate/device, sha256, summary (cut at `detail_width`)."""
    summary = " ".join(entry_summary(entry, mask).split())
    if detail_width is not None and len(summary) > detail_width:
        summary = summary[: detail_width - 1] + "…"
    return (
        table_stamp(entry.at),
        entry.kind,
        entry.change_id,
        entry.actor_name or "",
        entry.gate or entry.device or "",
        (entry.sha256 or "")[:12],
        summary,
    )


def render_summary(summary: ChangeSummary, mask: SecretMask) -> str:
    """Everything about one change: requester, approvers per gate, pushes, refusals, rollbacks.
    Built from the structured records; text people or the LLM wrote is quoted or flattened onto
    its line, so a request carrying line breaks cannot print lines that look like decisions;
    what people typed and what devices answered show no secret value (`mask`)."""
    lines = [_requested(summary), messages.AUDIT_REQUEST.format(text=_said(summary.text, mask))]
    if summary.rollback_of:
        lines.append(messages.AUDIT_ROLLS_BACK.format(change_id=_flat(summary.rollback_of)))
    for gate in summary.gates:
        lines.append(messages.AUDIT_GATE.format(gate=gate.gate, outcome=_gate_outcome(gate, mask)))
        lines.extend(_vote_line(vote) for vote in gate.votes)
    lines.extend(_push_line(p, mask) for p in summary.pushes)
    lines.extend(_refusal_line(r) for r in summary.refusals)
    lines.extend(_rollback_line(summary, r, mask) for r in summary.rollbacks)
    lines.extend(
        messages.AUDIT_OUTCOME.format(
            status=e.status, at=stamp(e.at), detail=_flat(mask.config(e.detail))
        )
        for e in summary.events
    )
    return "\n".join(lines)


def _rollback_line(summary: ChangeSummary, rollback: ChangeRecord, mask: SecretMask) -> str:
    """A later change rolling this one back: "rolled back" only when it ended done."""
    fields = {
        "change_id": rollback.change_id,
        "name": _flat(rollback.requester_name),
        "at": stamp(rollback.at),
    }
    ended = [e for e in summary.rollback_events if e.change_id == rollback.change_id]
    if not ended:
        return messages.AUDIT_ROLLBACK_OPEN.format(**fields)
    if ended[-1].status == "done":
        return messages.AUDIT_ROLLED_BACK.format(**fields)
    detail = _flat(mask.config(ended[-1].detail))
    return messages.AUDIT_NOT_ROLLED_BACK.format(status=ended[-1].status, detail=detail, **fields)


def _requested(summary: ChangeSummary) -> str:
    return messages.AUDIT_REQUESTED.format(
        kind=summary.kind,
        change_id=summary.change_id,
        name=_flat(summary.requester_name),
        id=_flat(summary.requester_id),
        at=stamp(summary.at),
        platform=_flat(summary.platform),
        channel=_flat(summary.channel),
    )


def _vote_line(vote: Vote) -> str:
    return messages.AUDIT_VOTE.format(
        choice=vote.choice,
        name=_flat(vote.actor_name),
        at=stamp(vote.at),
        sha=vote.content_sha256[:12],
    )


def _refusal_line(refusal: Refusal) -> str:
    return messages.AUDIT_REFUSED.format(
        name=_flat(refusal.actor_name),
        at=stamp(refusal.at),
        gate=refusal.gate or messages.AUDIT_AT_REQUEST,
        reason=_flat(refusal.reason),
    )


def _push_line(push: PushRow, mask: SecretMask) -> str:
    """The push's own result, then its post-checks' result apart (when any ran)."""
    said = messages.AUDIT_PUSH.format(
        device=_flat(push.device),
        icon=_icon(push.status),
        status=push.status,
        at=stamp(push.at),
        sha=push.lines_sha256[:12],
        detail=_flat(mask.config(push.detail)),
    )
    if push.post_check is None:
        return said
    return said + messages.AUDIT_PUSH_POST_CHECK.format(
        icon=_icon(push.post_check),
        status=push.post_check,
        detail=_flat(mask.config(push.post_check_detail or "")),
    )


def _icon(status: str) -> str:
    return "✓" if status == "success" else "✗"


def _gate_outcome(gate: GateSummary, mask: SecretMask) -> str:
    resolution = gate.resolution
    if resolution is None:
        return messages.AUDIT_PENDING
    feedback = resolution.feedback
    return messages.AUDIT_RESOLVED.format(
        choice=resolution.choice,
        name=_flat(resolution.actor_name),
        id=_flat(resolution.actor_id),
        at=stamp(resolution.at),
        sha=resolution.content_sha256[:12],
        feedback=messages.AUDIT_FEEDBACK.format(text=_said(feedback, mask)) if feedback else "",
    )


def _said(text: str, mask: SecretMask) -> str:
    """What someone typed, quoted on one line, with no secret value."""
    return _quoted(mask.said(text))


def _quoted(text: str) -> str:
    """Someone's words, in quotes on one line (line breaks and control characters escaped)."""
    return json.dumps(text, ensure_ascii=False)


def _flat(text: str) -> str:
    """As it is when it prints on one line, else quoted like `_quoted`."""
    return text if text.isprintable() else _quoted(text)
