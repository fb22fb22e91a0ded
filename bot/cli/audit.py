"""`labbot audit`, `audit verify`, `audit anchor` and `audit report` on the command line: they
read the database that is there (bot/records/place.py) and never create one."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console

from bot import messages
from bot.audit.table import Format, chain_break, render_entries, render_summary
from bot.cli.writable_paths import writable
from bot.labs.lab_option import refuse_lab_without_labs
from bot.records.audit_anchor import head_file, secret_mask
from bot.records.audit_verify import anchored_elsewhere, verified
from bot.records.place import database_place, demo_is_here, open_for_reading
from bot.records.storage_key import reading_keys
from bot.settings import Settings
from storage.audit_chain import AuditChain, ChainHead
from storage.audit_head import Anchor, database_name, head_text, parse_head
from storage.audit_store import AuditStore
from storage.db import make_engine

if TYPE_CHECKING:
    from bot.audit.report_data import Report


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
    *,
    wide: bool = False,
    lab: str | None = None,
) -> None:
    """`labbot audit`; `lab`: only the rows of that lab of LABBOT_LABS (a name neither the
    labs file nor any row has is one line listing the labs)."""
    refuse_lab_without_labs(settings, lab)
    await open_for_reading(settings)
    chain = AuditChain(storage_keys=reading_keys(settings))
    engine = make_engine(settings.database_url)
    try:
        store = AuditStore(engine, chain=chain)
        entries = await store.entries(
            change_id=change,
            user=user,
            device=device,
            since=_utc(since),
            until=_utc(until),
            lab=lab,
        )
        summary = await store.change_summary(change) if change else None
    finally:
        await engine.dispose()
    if lab is not None and not entries:
        await _known_lab(settings, lab)
    if not entries and fmt == "table" and not (change or user or device or since or until or lab):
        print(messages.AUDIT_EMPTY.format(where=database_place(settings)) + demo_is_here(settings))
        return
    mask = secret_mask(settings)
    print(render_entries(entries, fmt, mask, width=Console().width, wide=wide))
    if change and fmt == "table" and summary is not None:
        print()
        print(render_summary(summary, mask))


async def _known_lab(settings: Settings, lab: str) -> None:
    """A lab of the labs file (its pods found now), or one line listing the labs. Asked only
    when no row names `lab`: a lab gone from the file keeps its rows listed."""
    from bot.labs.lab_settings import chosen_lab  # finds pods: GNS3, containerlab folders

    await chosen_lab(settings, lab)


async def verify_audit(settings: Settings, head: str | None = None) -> bool:
    """The chain row by row, then against the anchored head: `head` (as the bot posted it) or
    the head file. A head file of another database is said to be one, not rows deleted."""
    file = head_file(settings)
    anchor = Anchor(parse_head(head)) if head else file.read()
    report, database, other = await verified(settings, anchor)
    where = database_place(settings)
    console = Console(soft_wrap=True, highlight=False)
    if not report.ok:
        console.print(messages.VERIFY_BROKEN.format(at=chain_break(report.first_broken)))
    elif other and anchor is not None:
        elsewhere = anchored_elsewhere(settings, anchor, database)
        console.print(messages.VERIFY_OTHER_DATABASE.format(elsewhere=elsewhere, rows=report.rows))
    else:
        against = (
            messages.VERIFIED_ANCHORED.format(head=head_text(anchor.head)[:24]) if anchor else ""
        )
        console.print(messages.VERIFIED.format(rows=report.rows, where=where, against=against))
    return bool(report.ok) and not other


async def anchor_audit(settings: Settings) -> bool:
    """`labbot audit anchor`: write this database's chain head to the head file, after checking
    the chain (and against the file's head when that anchors this database: a truncation is
    refused, not re-anchored)."""
    file = head_file(settings)
    report, database, _ = await verified(settings, file.read())
    console = Console(soft_wrap=True, highlight=False)
    where = database_place(settings)
    if not report.ok:
        console.print(
            messages.ANCHOR_REFUSED.format(where=where, at=chain_break(report.first_broken))
        )
        return False
    head = ChainHead(report.rows, report.head)
    await asyncio.to_thread(file.replace, Anchor(head, database))
    console.print(
        messages.ANCHORED.format(
            where=where, rows=head.rows, head=head.row_hash[:16], file=file.path
        )
    )
    return True


async def write_report(
    settings: Settings,
    output: Path,
    since: datetime | None,
    change: str | None,
    lab: str | None = None,
) -> Report:
    """`labbot audit report -o FILE.html`: gathered from storage, checked against the head file;
    `lab`: only the changes of that lab of LABBOT_LABS (as `labbot audit --lab` filters)."""
    refuse_lab_without_labs(settings, lab)
    # the report reads previews through the workflow (LangGraph, the device drivers): loaded
    # here, not by `labbot audit` and `audit verify`, which read storage only
    from bot.audit.report_data import gather_report
    from bot.audit.report_html import render_report
    from bot.runtime.reading import reading_runtime

    writable(output, "--output")
    file = head_file(settings)
    async with reading_runtime(settings) as runtime:
        anchor = file.read()
        if anchor is not None and not anchor.anchors(await database_name(runtime.audit.engine)):
            anchor = None  # another database's head: `labbot audit verify` says so
        report = await gather_report(
            audit=runtime.audit,
            workflow=runtime.workflow,
            templates=runtime.templates,
            generated_at=runtime.service.clock(),
            since=_utc(since),
            change_id=change,
            anchor=anchor.head if anchor else None,
            lab=lab,
        )
        page = render_report(report, runtime.service.reporter.mask)
    if lab is not None and not report.changes:
        await _known_lab(settings, lab)
    await asyncio.to_thread(output.write_text, page, "utf-8")
    return report


def report_written(settings: Settings, output: Path, report: Report) -> str:
    """What `labbot audit report` says once the file is written: where, what, from where."""
    return messages.REPORT_WRITTEN.format(
        path=output,
        count=len(report.changes),
        of_lab=messages.REPORT_WRITTEN_LAB.format(lab=report.lab) if report.lab else "",
        where=database_place(settings),
        chain=messages.REPORT_WRITTEN_CHAIN[report.chain.ok],
    )
