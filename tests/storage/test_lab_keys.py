"""Many labs on one database: a device is named within its lab. Two labs' R1 are locked apart;
every audit row names its lab (its own, else its change's) and `entries(lab=…)` keeps one lab's;
rows written before 0018 keep their hash (verify holds)."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy.ext.asyncio import AsyncEngine

from storage.audit_records import DevicePush
from storage.audit_store import AuditStore
from storage.locks import DeviceLockStore
from tests.support.sealing import SEALING

SHA = "b" * 64
LONG_AGO = datetime(2000, 1, 1, tzinfo=UTC)


async def test_two_labs_r1_are_locked_apart(engine: AsyncEngine) -> None:
    pod3, pod4, one = (DeviceLockStore(engine, lab) for lab in ("pod-3", "pod-4", ""))
    assert await pod3.acquire("chg-3", ["R1", "R2"], ttl_seconds=60) == []
    assert await pod4.acquire("chg-4", ["R1"], ttl_seconds=60) == []  # not pod-3's R1
    assert await one.acquire("chg-0", ["R1"], ttl_seconds=60) == []
    [held] = await pod3.acquire("chg-5", ["R1"], ttl_seconds=60)
    assert (held.device, held.change_id) == ("R1", "chg-3")
    await pod4.release("chg-3", ["R1"])  # pod-4 cannot free pod-3's lock by its name
    assert [lock.change_id for lock in await pod3.acquire("chg-5", ["R1"], 60)] == ["chg-3"]
    await pod3.release_change("chg-3")
    assert await pod3.acquire("chg-5", ["R1"], ttl_seconds=60) == []
    [held] = await pod4.acquire("chg-6", ["R1"], ttl_seconds=60)
    assert held.change_id == "chg-4"


async def change(audit: AuditStore, change_id: str, lab: str) -> None:
    await audit.record_change(
        change_id,
        thread_key=f"slack:{lab}:1",
        platform="slack",
        channel=f"C-{lab}",
        requester_id="U1",
        requester_name="Ann",
        text="configure ntp",
        lab=lab,
    )


async def test_every_audit_row_names_its_lab(engine: AsyncEngine) -> None:
    pod3 = AuditStore(engine, chain=SEALING, lab="pod-3")
    pod4 = AuditStore(engine, chain=SEALING, lab="pod-4")
    await change(pod3, "chg-3", "pod-3")
    await change(pod4, "chg-4", "pod-4")
    for audit, change_id in ((pod3, "chg-3"), (pod4, "chg-4")):
        push = DevicePush(device="R1", lines_sha256=SHA, status="success", detail="")
        await audit.record_pushes(change_id, [push])
        await audit.record_change_event(change_id=change_id, status="done")
    for audit in (pod3, pod4):
        await audit.record_reads(
            actor_id="U1",
            actor_name="Ann",
            platform="slack",
            channel="C",
            sent={"R1": "show version"},
            since=LONG_AGO,
            limit=100,
        )
    everything = await pod3.entries()
    assert [(e.kind, e.lab) for e in everything] == [
        ("change", "pod-3"),
        ("change", "pod-4"),
        ("push", "pod-3"),
        ("event", "pod-3"),
        ("push", "pod-4"),
        ("event", "pod-4"),
        ("read", "pod-3"),
        ("read", "pod-4"),
    ]
    only4 = await pod3.entries(lab="pod-4")
    assert [(e.kind, e.change_id, e.device) for e in only4] == [
        ("change", "chg-4", ""),
        ("push", "chg-4", "R1"),
        ("event", "chg-4", ""),
        ("read", "", "R1"),
    ]
    assert [e.kind for e in await pod3.entries(lab="pod-4", device="R1")] == [
        "change",
        "push",
        "event",
        "read",
    ]
    assert (await pod3.verify()).ok
