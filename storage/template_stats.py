"""Usage figures of the template library, from the audit: uses per template and version, push
success per device, tokens spent, and tokens saved by reusing saved templates.

A reuse saves what the saved version's template first cost (`origin_tokens`: the template step
of the change it was saved from); a change reusing it spends 0 template tokens.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from storage.schema import change_events, pushes, saved_templates, template_uses

__all__ = ["TemplateStats"]


@dataclass
class UsageRow:
    name: str
    version: int | None  # None: built-in or written by the LLM for one change
    source: str  # builtin, saved, llm
    uses: int = 0  # changes that used it
    done: int = 0  # of which ended pushed without failure
    devices: dict[str, list[int]] = field(default_factory=dict)  # device -> [ok, pushes]
    tokens_spent: int = 0  # tokens of the changes that used it (all steps)
    tokens_saved: int = 0  # template tokens not spent thanks to reusing it

    @property
    def label(self) -> str:
        return self.name if self.version is None else f"{self.name}@{self.version}"


@dataclass(frozen=True)
class TemplateStats:
    rows: list[UsageRow]  # most used first
    changes: int  # changes with a recorded template
    tokens_spent: int
    tokens_saved: int


async def compute_stats(conn: AsyncConnection) -> TemplateStats:
    uses = list(await conn.execute(sa.select(template_uses).order_by(template_uses.c.seq)))
    change_ids = [use.change_id for use in uses]
    pushed = await _pushes(conn, change_ids)
    spent = await _tokens(conn, change_ids)
    c = saved_templates.c
    saved = await conn.execute(sa.select(c.name, c.version, c.origin_tokens))
    origin = {(row.name, row.version): row.origin_tokens for row in saved}
    rows: dict[tuple[str, int | None], UsageRow] = {}
    for use in uses:
        for part in json.loads(use.parts):
            key = (part["name"], part["version"])
            row = rows.setdefault(key, UsageRow(part["name"], part["version"], part["source"]))
            _count(row, use, pushed.get(use.change_id, []), spent.get(use.change_id, 0))
            if part["source"] == "saved":
                row.tokens_saved += origin.get(key, 0)
    ordered = sorted(rows.values(), key=lambda r: (-r.uses, r.name, r.version or 0))
    return TemplateStats(
        rows=ordered,
        changes=len(set(change_ids)),
        tokens_spent=sum(spent.get(change_id, 0) for change_id in set(change_ids)),
        tokens_saved=sum(row.tokens_saved for row in ordered),
    )


def _count(row: UsageRow, use: Any, pushed: list[tuple[str, str]], tokens: int) -> None:
    row.uses += 1
    row.done += use.status == "done"
    row.tokens_spent += tokens
    for device, status in pushed:
        tally = row.devices.setdefault(device, [0, 0])
        tally[0] += status == "success"
        tally[1] += 1


async def _pushes(conn: AsyncConnection, change_ids: list[str]) -> dict[str, list[tuple[str, str]]]:
    query = sa.select(pushes.c.change_id, pushes.c.device, pushes.c.status).where(
        pushes.c.change_id.in_(change_ids)
    )
    found: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for change_id, device, status in await conn.execute(query):
        found[change_id].append((device, status))
    return found


async def _tokens(conn: AsyncConnection, change_ids: list[str]) -> dict[str, int]:
    """Total tokens per change, from its outcome event."""
    query = sa.select(change_events.c.change_id, change_events.c.tokens).where(
        change_events.c.change_id.in_(change_ids), change_events.c.tokens.is_not(None)
    )
    totals: dict[str, int] = {}
    for change_id, tokens in await conn.execute(query.order_by(change_events.c.seq)):
        totals[change_id] = int(json.loads(tokens).get("total", {}).get("total_tokens", 0))
    return totals
