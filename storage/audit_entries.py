"""The flat, time-ordered audit listing behind `labbot audit` (by change, user, device, time);
rows are read opened (storage.audit_seal)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from base.vocabulary import as_utc
from storage.audit_records import AuditEntry, TemplateRef
from storage.audit_seal import open_listed
from storage.encryption import StorageKeys
from storage.schema import (
    agent_calls,
    change_events,
    changes,
    decisions,
    gate_resolutions,
    pushes,
    reads,
    refusals,
    template_uses,
)

Row = Mapping[str, Any]  # an audit row, opened


def _said(r: Row, actor_id: str, actor_name: str) -> dict[str, Any]:
    """Who acted, and where (the platform and channel of the row)."""
    return dict(
        actor_id=actor_id, actor_name=actor_name, platform=r["platform"], channel=r["channel"]
    )


def _change(r: Row) -> dict[str, Any]:
    return dict(
        kind=r["kind"],
        **_said(r, r["requester_id"], r["requester_name"]),
        text=r["text"],
        rollback_of=r["rollback_of"] or "",
        lab=r["lab"] or "",
    )


def _decision(r: Row) -> dict[str, Any]:
    return dict(
        kind="decision",
        **_said(r, r["actor_id"], r["actor_name"]),
        gate=r["gate"],
        choice=r["choice"],
        detail=r["feedback"] or "",
        sha256=r["content_sha256"],
    )


def _resolution(r: Row) -> dict[str, Any]:
    return dict(
        kind="resolved",
        actor_id=r["actor_id"],
        actor_name=r["actor_name"],
        gate=r["gate"],
        choice=r["choice"],
        sha256=r["content_sha256"],
    )


def _refusal(r: Row) -> dict[str, Any]:
    who = _said(r, r["actor_id"], r["actor_name"])
    return dict(kind="refusal", **who, gate=r["gate"] or "", detail=r["reason"])


def _push(r: Row) -> dict[str, Any]:
    return dict(
        kind="push",
        device=r["device"],
        sha256=r["lines_sha256"],
        status=r["status"],
        detail=r["detail"],
        post_check=r["post_check"] or "",
        post_check_detail=r["post_check_detail"] or "",
        lab=r["lab"] or "",
    )


def _event(r: Row) -> dict[str, Any]:
    return dict(kind="event", status=r["status"], detail=r["detail"], tokens=r["tokens"] or "")


def _template_use(r: Row) -> dict[str, Any]:
    parts = json.loads(r["parts"])
    used = tuple(TemplateRef(p["name"], p["version"], p["source"], p["sha256"]) for p in parts)
    return dict(
        kind="template",
        status=r["status"],
        templates=used,
        sha256=parts[0]["sha256"] if len(parts) == 1 else "",
    )


def _read(r: Row) -> dict[str, Any]:
    who = _said(r, r["actor_id"], r["actor_name"])
    return dict(kind="read", **who, device=r["device"], text=r["command"], lab=r["lab"] or "")


def _agent_call(r: Row) -> dict[str, Any]:
    who = _said(r, r["actor_id"], r["actor_name"])
    return dict(
        kind="agent",
        **who,
        gate=r["tool"],
        text=r["arguments"],
        status=r["outcome"],
        lab=r["lab"] or "",
    )


# table -> (row to entry fields, columns a `user` filter matches)
_SHAPES: dict[sa.Table, tuple[Callable[[Row], dict[str, Any]], tuple[str, ...]]] = {
    changes: (_change, ("requester_id", "requester_name")),
    decisions: (_decision, ("actor_id", "actor_name")),
    gate_resolutions: (_resolution, ("actor_id", "actor_name")),
    refusals: (_refusal, ("actor_id", "actor_name")),
    pushes: (_push, ()),
    change_events: (_event, ()),
    template_uses: (_template_use, ()),
    reads: (_read, ("actor_id", "actor_name")),
    agent_calls: (_agent_call, ("actor_id", "actor_name", "principal")),
}


async def query_entries(
    conn: AsyncConnection,
    keys: StorageKeys | None,
    *,
    change_id: str | None,
    user: str | None,
    device: str | None,
    since: datetime | None,
    until: datetime | None,
    lab: str | None = None,
) -> list[AuditEntry]:
    """The rows asked for, each naming its lab (its own, else its change's); `lab`: only the
    rows of that lab."""
    entries: list[AuditEntry] = []
    for table, (shape, user_columns) in _SHAPES.items():
        if user is not None and not user_columns:
            continue
        where = _where(table, change_id, since, until)
        if user is not None:
            where.append(sa.or_(*(table.c[name] == user for name in user_columns)))
        if device is not None:
            where.append(_on_device(table, device))
        if lab:  # narrowed in the database: a class's thousands of other rows are not opened
            where.append(_in_lab(table, lab))
        for stored in await conn.execute(sa.select(table).where(*where)):
            row = open_listed(table, stored, keys)
            entries.append(_entry(row, shape(row)))
    entries = await _with_labs(conn, entries)
    if lab is not None:
        entries = [e for e in entries if e.lab == lab]
    return sorted(entries, key=lambda e: e.seq)


async def _with_labs(conn: AsyncConnection, entries: list[AuditEntry]) -> list[AuditEntry]:
    """Each row about a change names the change's lab where it keeps none of its own."""
    wanted = {e.change_id for e in entries if e.change_id and not e.lab}
    if not wanted:
        return entries
    found = await conn.execute(
        sa.select(changes.c.change_id, changes.c.lab).where(changes.c.change_id.in_(wanted))
    )
    labs = {row.change_id: row.lab or "" for row in found}
    return [
        replace(e, lab=labs.get(e.change_id, "")) if e.change_id and not e.lab else e
        for e in entries
    ]


def _on_device(table: sa.Table, device: str) -> sa.ColumnElement[bool]:
    """Rows about `device`: its pushes and reads, and the rows of changes that pushed to it."""
    if table is pushes or table is reads:
        return table.c.device == device
    touched = sa.select(pushes.c.change_id).where(pushes.c.device == device)
    return table.c.change_id.in_(touched)


def _in_lab(table: sa.Table, lab: str) -> sa.ColumnElement[bool]:
    """The rows of `lab` as `_with_labs` names them: the row's own lab, else its change's."""
    of_lab = table.c.change_id.in_(sa.select(changes.c.change_id).where(changes.c.lab == lab))
    if "lab" not in table.c:
        return of_lab
    own = table.c.lab
    return sa.or_(own == lab, sa.and_(sa.or_(own.is_(None), own == ""), of_lab))


def _where(
    table: sa.Table, change_id: str | None, since: datetime | None, until: datetime | None
) -> list[sa.ColumnElement[bool]]:
    where: list[sa.ColumnElement[bool]] = []
    if change_id is not None:
        where.append(table.c.change_id == change_id)
    if since is not None:
        where.append(table.c.at >= as_utc(since))
    if until is not None:
        where.append(table.c.at < as_utc(until))
    return where


def _entry(row: Row, fields: dict[str, Any]) -> AuditEntry:
    base: dict[str, Any] = dict(
        seq=row["seq"],
        at=as_utc(row["at"]),
        change_id=row["change_id"] or "",
        actor_id="",
        actor_name="",
        platform="",
        channel="",
        gate="",
        device="",
        sha256="",
    )
    return AuditEntry(**{**base, **fields})
