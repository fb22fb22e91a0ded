"""`labbot audit` and `labbot audit verify` on the command line."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console

from bot import messages
from bot.audit_anchor import audit_key, head_file
from bot.audit_view import Format, chain_break, render_entries, render_summary
from bot.settings import Settings
from storage.audit import AuditStore
from storage.audit_anchor import head_text, parse_head
from storage.audit_chain import AuditChain
from storage.db import make_engine, upgrade_database

if TYPE_CHECKING:
    from bot.report_data import Report


def _utc(value: datetime | None) -> datetime | None:
    return value.replace(tzinfo=UTC) if value and value.tzinfo is None else value


async def print_audit(
    settings: Settings,
    change: str | None,
    user: str | None,
    device: str | None,
    since: datetime | None,
    until: datetime | None,
    fmt: Format,
) -> None:
    await upgrade_database(settings.database_url)
    engine = make_engine(settings.database_url)
    try:
        store = AuditStore(engine)
        entries = await store.entries(
            change_id=change, user=user, device=device, since=_utc(since), until=_utc(until)
        )
        summary = await store.change_summary(change) if change else None
    finally:
        await engine.dispose()
    print(render_entries(entries, fmt, width=Console().width))
    if change and fmt == "table" and summary is not None:
        print()
        print(render_summary(summary))


async def verify_audit(settings: Settings, head: str | None = None) -> bool:
    """The chain row by row with the HMAC key, then against the anchored head: `head` (as the
    bot posted it) or the head file."""
    anchor = parse_head(head) if head else head_file(settings).read()
    await upgrade_database(settings.database_url)
    engine = make_engine(settings.database_url)
    try:
        store = AuditStore(engine, chain=AuditChain(key=audit_key(settings, create=False)))
        report = await store.verify(anchor)
    finally:
        await engine.dispose()
    console = Console()
    if report.ok:
        against = messages.VERIFIED_ANCHORED.format(head=head_text(anchor)[:24]) if anchor else ""
        console.print(messages.VERIFIED.format(rows=report.rows, against=against))
    else:
        console.print(messages.VERIFY_BROKEN.format(at=chain_break(report.first_broken)))
    return bool(report.ok)


async def write_report(
    settings: Settings, output: Path, since: datetime | None, change: str | None
) -> Report:
    """`labbot audit report -o FILE.html`: gathered from storage, checked against the head file."""
    # the report reads previews through the workflow (LangGraph, the device drivers): loaded
    # here, not by `labbot audit` and `audit verify`, which read storage only
    from bot.offline import reading_runtime
    from bot.report_data import gather_report
    from bot.report_html import render_report

    async with reading_runtime(settings) as runtime:
        report = await gather_report(
            audit=runtime.audit,
            workflow=runtime.workflow,
            templates=runtime.templates,
            generated_at=runtime.service.clock(),
            since=_utc(since),
            change_id=change,
            anchor=head_file(settings).read(),
        )
    await asyncio.to_thread(output.write_text, render_report(report), "utf-8")
    return report
