"""Each kind of audit entry storage returns is worded by the bot in one line (the `summary`
of the audit table in chat, and of the CLI's table, CSV and JSON)."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime
from typing import get_args

import pytest

from base.masking import SecretMask
from bot import messages
from bot.audit.table import chain_break, entry_summary, render_entries
from storage.audit_records import AuditEntry, AuditKind, BreakKind, ChainBreak, TemplateRef

MASK = SecretMask(b"test key")

BASE = AuditEntry(
    seq=1,
    at=datetime(2026, 11, 30, 7, 15, tzinfo=UTC),
    kind="change",
    change_id="chg-1",
    actor_id="U1",
    actor_name="alice",
    platform="slack",
    channel="C1",
    gate="",
    device="",
    sha256="",
)
OSPF = TemplateRef("lab_ospf", 2, "saved", "3f2a" * 16)
NTP = TemplateRef("ntp", None, "builtin", "9c1d" * 16)
CASES: list[tuple[AuditEntry, str]] = [
    (replace(BASE, text="apply ospf to R1"), "requested: apply ospf to R1"),
    (
        replace(BASE, kind="rollback", rollback_of="chg-0", text="rollback chg-0"),
        "rollback of chg-0 requested: rollback chg-0",
    ),
    (
        replace(BASE, kind="decision", gate="params", choice="modify", detail="area 1"),
        "modify at the params gate — area 1",
    ),
    (
        replace(BASE, kind="resolved", gate="template", choice="approve"),
        "template gate settled: approve",
    ),
    (replace(BASE, kind="refusal", detail="four-eyes"), "refused: four-eyes"),
    (
        replace(BASE, kind="push", device="R2", status="failed", detail="timed out\nmore"),
        "push to R2: failed — timed out",
    ),
    (
        replace(BASE, kind="event", status="done", detail="pushed to 2 of 2 devices", tokens="{}"),
        "done: pushed to 2 of 2 devices",
    ),
    (
        replace(
            BASE,
            kind="event",
            status="done",
            detail="pushed to 1 of 1 devices",
            tokens='{"params":{"input_tokens":0,"total_tokens":0},'
            '"template":{"input_tokens":900,"output_tokens":312,"total_tokens":1212}}',
        ),
        "done: pushed to 1 of 1 devices (LLM tokens: template 1,212)",
    ),
    (
        replace(BASE, kind="template", status="done", templates=(OSPF, NTP)),
        "template: lab_ospf@2 (saved) sha256 3f2a3f2a3f2a + ntp (builtin) sha256 9c1d9c1d9c1d"
        " — change done",
    ),
    (replace(BASE, kind="read", device="R1", text="show clock"), "read on R1: show clock"),
    (
        replace(BASE, kind="agent", gate="show", text='{"command":"reload"}', status="refused"),
        'MCP show {"command":"reload"}: refused',
    ),
]


@pytest.mark.parametrize(("entry", "said"), CASES, ids=[e.kind for e, _ in CASES])
def test_each_audit_entry_is_said_in_one_line(entry: AuditEntry, said: str) -> None:
    assert entry_summary(entry, MASK) == said


def test_every_kind_of_entry_has_words_and_the_cli_json_keeps_the_summary() -> None:
    assert set(messages.AUDIT_ENTRY) == set(get_args(AuditKind))
    assert {entry.kind for entry, _ in CASES} == set(get_args(AuditKind))
    rows = json.loads(render_entries([entry for entry, _ in CASES], "json", MASK))
    assert [row["summary"] for row in rows] == [said for _, said in CASES]
    assert rows[8]["templates"][0]["name"] == "lab_ospf"


def test_what_people_typed_shows_no_secret_value_in_any_format() -> None:
    """The row keeps the request and feedback as typed (its hash covers them); every view of it
    masks the value after a secret-ish keyword."""
    request = replace(BASE, text="set the snmp community to s3cr3t-Comm on R1")
    feedback = replace(BASE, kind="decision", gate="params", choice="modify", detail="key Xyz12")
    entries = [request, feedback]
    assert (
        entry_summary(request, MASK)
        == f"requested: set the snmp community to {MASK.token('s3cr3t-Comm')} on R1"
    )
    for fmt in ("json", "csv", "table"):
        shown = render_entries(entries, fmt, MASK, width=400)
        shown = json.dumps(json.loads(shown), ensure_ascii=False) if fmt == "json" else shown
        assert "s3cr3t-Comm" not in shown and "Xyz12" not in shown, shown
        assert MASK.token("s3cr3t-Comm") in shown and MASK.token("Xyz12") in shown
    assert "s3cr3t-Comm" in request.text  # the record itself is untouched


def test_every_way_the_chain_breaks_is_said_with_where() -> None:
    assert set(messages.CHAIN_BREAK) == set(get_args(BreakKind))
    for kind in get_args(BreakKind):
        said = chain_break(ChainBreak(kind, "pushes", 3, seq=7, expected=5, anchored_hash="f" * 64))
        assert said.startswith("pushes#3: ") and "{" not in said, said
    cut = chain_break(ChainBreak("truncated", seq=4, expected=9))
    assert (
        cut == "the database has 4 audit rows, the anchored head says 9: the last rows were deleted"
    )
