"""What an audit report shows, gathered from storage: the changes of a period with everything
recorded about each (decisions, refusals, pushes, outcomes, templates used, the previews shown,
the lab's picture after the push) and the chain's verification."""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

from bot.topology.thread_pictures import step_picture
from storage.audit_chain import ChainHead
from storage.audit_records import ChainReport, ChangeSummary, Vote
from storage.audit_store import AuditStore
from storage.template_store import TemplateStore
from workflow.api import Step
from workflow.phases.previews import DevicePreview

if TYPE_CHECKING:
    from bot.topology.picture import Picture

__all__ = ["Report", "gather_report"]

MAX_CHANGES = 500  # changes one report holds (the newest); the report says when it left some out


class PreviewReader(Protocol):
    async def previews_of(self, thread_id: str, change_id: str) -> dict[str, DevicePreview]: ...

    async def last_step(self, thread_id: str, change_id: str) -> Step | None: ...


@dataclass(frozen=True)
class ReportChange:
    summary: ChangeSummary
    templates: tuple[dict[str, object], ...]  # parts used: name, version, sha256, source
    previews: dict[str, DevicePreview]  # per device: lines and diff shown at the params gate
    picture: Picture | None = None  # the lab: targets, or devices by result, links by session


@dataclass(frozen=True)
class Report:
    changes: tuple[ReportChange, ...]
    chain: ChainReport
    generated_at: datetime
    since: datetime | None = None
    change_id: str | None = None
    left_out: int = 0  # older changes of the period beyond MAX_CHANGES
    lab: str | None = None  # only this lab's changes (of the labs file, LABBOT_LABS)


@dataclass(frozen=True)
class Tally:
    label: str  # a day (2026-11-30) or a person
    changes: int
    decisions: int


async def gather_report(
    *,
    audit: AuditStore,
    workflow: PreviewReader,
    templates: TemplateStore | None,
    generated_at: datetime,
    since: datetime | None = None,
    change_id: str | None = None,
    anchor: ChainHead | None = None,
    lab: str | None = None,
) -> Report:
    """The report; `lab`: only the changes made on that lab (the chain is verified whole)."""
    entries = await audit.entries(change_id=change_id, since=since, lab=lab)
    ids = list(dict.fromkeys(e.change_id for e in entries if e.kind in ("change", "rollback")))
    kept = ids[-MAX_CHANGES:]
    uses = await templates.uses_of(kept) if templates is not None else {}
    changes = []
    for cid in kept:
        summary = await audit.change_summary(cid)
        if summary is None:
            continue
        previews = await workflow.previews_of(summary.thread_key, cid)
        step = await workflow.last_step(summary.thread_key, cid)
        picture = await asyncio.to_thread(step_picture, step) if step else None
        changes.append(ReportChange(summary, tuple(uses.get(cid, ())), previews, picture))
    return Report(
        changes=tuple(changes),
        chain=await audit.verify(anchor),
        generated_at=generated_at,
        since=since,
        change_id=change_id,
        left_out=len(ids) - len(kept),
        lab=lab,
    )


def per_day(report: Report) -> list[Tally]:
    """Changes requested and decisions made, per UTC day of the period."""
    changes = Counter(c.summary.at.date().isoformat() for c in report.changes)
    decisions = Counter(v.at.date().isoformat() for c in report.changes for v in _votes(c))
    return [Tally(day, changes[day], decisions[day]) for day in sorted({*changes, *decisions})]


def per_person(report: Report) -> list[Tally]:
    """Changes requested and decisions made, per person (most active first)."""
    changes = Counter(c.summary.requester_name for c in report.changes)
    decisions = Counter(v.actor_name for c in report.changes for v in _votes(c))
    names = sorted({*changes, *decisions}, key=lambda n: (-changes[n] - decisions[n], n))
    return [Tally(name, changes[name], decisions[name]) for name in names]


def _votes(change: ReportChange) -> list[Vote]:
    return [vote for gate in change.summary.gates for vote in gate.votes]
