"""Audit records: first decision wins, N-of-M approvals, summaries, filters, tamper detection."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from base.errors import DecisionConflict
from base.vocabulary import Choice, GateName
from storage.audit_records import Ballot, DevicePush
from storage.audit_store import AuditStore, at_least
from storage.db import make_engine
from tests.support.sealing import SEALING

SHA = "a" * 64


async def new_change(audit: AuditStore, change_id: str = "chg-1", **extra: Any) -> None:
    fields: dict[str, Any] = dict(
        thread_key="slack:C1:1700.1",
        platform="slack",
        channel="C1",
        requester_id="U-req",
        requester_name="Rita",
        text="configure OSPF area 0",
    )
    await audit.record_change(change_id, **{**fields, **extra})


def vote(
    actor: str, choice: Choice = "approve", interrupt_id: str = "int-1", gate: GateName = "template"
) -> Ballot:
    return Ballot(
        change_id="chg-1",
        gate=gate,
        interrupt_id=interrupt_id,
        choice=choice,
        content_sha256=SHA,
        feedback=None,
        actor_id=f"U-{actor}",
        actor_name=actor,
        platform="slack",
        channel="C1",
    )


async def test_first_decision_wins_and_the_second_learns_who_decided(engine: AsyncEngine) -> None:
    audit = AuditStore(engine, chain=SEALING)
    await new_change(audit)
    first = await audit.decide(vote("Alice"))
    assert first.resolved and first.resolution is not None
    assert (first.resolution.actor_name, first.resolution.choice) == ("Alice", "approve")

    with pytest.raises(DecisionConflict, match="already settled: approve by Alice at") as lost:
        await audit.decide(vote("Bob", "cancel"))
    assert lost.value.existing == first.resolution
    assert await audit.resolution("int-1") == first.resolution


async def test_two_approvals_needed_and_nobody_votes_twice(engine: AsyncEngine) -> None:
    audit = AuditStore(engine, chain=SEALING)
    await new_change(audit)
    one = await audit.decide(vote("Alice"), settles=at_least(2))
    assert not one.resolved and [v.actor_name for v in one.approvals] == ["Alice"]
    with pytest.raises(DecisionConflict, match="Alice already voted") as again:
        await audit.decide(vote("Alice"), settles=at_least(2))
    assert again.value.existing is None
    two = await audit.decide(vote("Bob"), settles=at_least(2))
    assert two.resolved and two.resolution is not None and two.resolution.actor_name == "Bob"
    assert [v.actor_name for v in two.approvals] == ["Alice", "Bob"]


async def test_a_cancel_settles_the_gate_without_waiting_for_approvals(engine: AsyncEngine) -> None:
    audit = AuditStore(engine, chain=SEALING)
    await new_change(audit)
    await audit.decide(vote("Alice"), settles=at_least(3))
    cancelled = await audit.decide(vote("Bob", "cancel"), settles=at_least(3))
    assert cancelled.resolved and cancelled.resolution is not None
    assert cancelled.resolution.choice == "cancel"


async def test_racing_replicas_produce_exactly_one_winner(
    database_url: str, engine: AsyncEngine
) -> None:
    await new_change(AuditStore(engine, chain=SEALING))
    engines = [make_engine(database_url) for _ in range(6)]  # one per "replica"
    try:
        outcomes = await asyncio.gather(
            *(AuditStore(e, chain=SEALING).decide(vote(f"user{i}")) for i, e in enumerate(engines)),
            return_exceptions=True,
        )
    finally:
        for e in engines:
            await e.dispose()
    winners = [o for o in outcomes if not isinstance(o, BaseException)]
    losers = [o for o in outcomes if isinstance(o, DecisionConflict)]
    assert len(winners) == 1 and len(losers) == 5
    winner = winners[0].resolution
    assert all(lost.existing == winner for lost in losers)
    assert (await AuditStore(engine, chain=SEALING).verify()).ok


async def test_change_summary_tells_who_confirmed_what(engine: AsyncEngine) -> None:
    audit = AuditStore(engine, chain=SEALING)
    await new_change(audit)
    await audit.decide(vote("Alice"))
    await audit.decide(vote("Bob", interrupt_id="int-2", gate="params"))
    await audit.record_refusal(
        change_id="chg-1",
        interrupt_id="int-2",
        gate="params",
        actor_id="U-eve",
        actor_name="Eve",
        platform="slack",
        channel="C1",
        reason="not an approver here",
    )
    await audit.record_pushes(
        "chg-1",
        [
            DevicePush(device="R1", lines_sha256=SHA, status="success", detail="ok"),
            DevicePush(device="R2", lines_sha256=SHA, status="failed", detail="timeout"),
        ],
    )
    await audit.record_change_event(
        change_id="chg-1",
        status="done",
        tokens={"input_tokens": 10, "output_tokens": 5, "total_tokens": 15},
    )
    await new_change(audit, "chg-2", kind="rollback", rollback_of="chg-1", text="rollback chg-1")

    summary = await audit.change_summary("chg-1")
    assert summary is not None
    assert (summary.requester_name, summary.text) == ("Rita", "configure OSPF area 0")
    assert [(g.gate, g.resolution.actor_name if g.resolution else None) for g in summary.gates] == [
        ("template", "Alice"),
        ("params", "Bob"),
    ]
    assert summary.gates[1].votes[0].content_sha256 == SHA
    assert [(p.device, p.status) for p in summary.pushes] == [("R1", "success"), ("R2", "failed")]
    assert [r.actor_name for r in summary.refusals] == ["Eve"]
    assert [r.change_id for r in summary.rollbacks] == ["chg-2"]
    assert summary.events[0].tokens == '{"input_tokens":10,"output_tokens":5,"total_tokens":15}'
    assert await audit.change_summary("chg-unknown") is None
    latest = await audit.latest_change_for_thread("slack:C1:1700.1")
    assert latest is not None and latest.change_id == "chg-2"


async def test_entries_filter_by_change_user_device_and_time(engine: AsyncEngine) -> None:
    audit = AuditStore(engine, chain=SEALING)
    before = datetime.now(UTC) - timedelta(seconds=1)
    await new_change(audit)
    await audit.decide(vote("Alice"))
    await audit.record_pushes(
        "chg-1", [DevicePush(device="R1", lines_sha256=SHA, status="success", detail="")]
    )
    await audit.record_pushes(
        "chg-1", [DevicePush(device="R2", lines_sha256=SHA, status="success", detail="")]
    )
    await new_change(audit, "chg-2", requester_id="U-bob", requester_name="Bob")

    everything = await audit.entries()
    assert [e.kind for e in everything] == [
        "change",
        "decision",
        "resolved",
        "push",
        "push",
        "change",
    ]
    assert [e.seq for e in everything] == sorted(e.seq for e in everything)
    assert {e.change_id for e in await audit.entries(change_id="chg-2")} == {"chg-2"}
    assert [e.kind for e in await audit.entries(user="Alice")] == ["decision", "resolved"]
    assert [e.kind for e in await audit.entries(user="U-bob")] == ["change"]
    on_r2 = await audit.entries(device="R2")
    assert [(e.kind, e.device) for e in on_r2] == [
        ("change", ""),
        ("decision", ""),
        ("resolved", ""),
        ("push", "R2"),
    ]
    assert len(await audit.entries(since=before)) == 6
    assert await audit.entries(until=before) == []
    assert (everything[1].kind, everything[1].choice, everything[1].gate) == (
        "decision",
        "approve",
        "template",
    )


@pytest.mark.parametrize(
    ("tamper", "broken"),
    [
        ("UPDATE decisions SET actor_name = 'Mallory'", ("content", "decisions", 1, 2, 2)),
        ("DELETE FROM changes", ("seq_gap", "decisions", 1, 2, 1)),
        ("UPDATE pushes SET prev_hash = row_hash", ("prev_hash", "pushes", 1, 4, 4)),
    ],
)
async def test_verify_names_the_first_tampered_row(
    engine: AsyncEngine, tamper: str, broken: tuple[str, str, int, int, int]
) -> None:
    audit = AuditStore(engine, chain=SEALING)
    await new_change(audit)
    await audit.decide(vote("Alice"))
    await audit.record_pushes(
        "chg-1", [DevicePush(device="R1", lines_sha256=SHA, status="success", detail="")]
    )
    healthy = await audit.verify()
    assert (healthy.ok, healthy.rows, healthy.first_broken) == (True, 4, None)

    async with engine.begin() as conn:
        await conn.execute(sa.text(tamper))
    report = await audit.verify()
    assert not report.ok
    found = report.first_broken
    assert found is not None
    assert (found.kind, found.table, found.row_id, found.seq, found.expected) == broken
