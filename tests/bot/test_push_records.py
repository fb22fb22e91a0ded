"""A push and its post-checks are booked apart, once, from the step's push records alone.

Through the decision service with the real graph, saver and simulated lab (netmiko over telnet):
three IOS-like routers apply a static route, and the post-check read `show ip route` is refused
on each. The audit says all three were pushed and, apart, that their post-checks failed; keeping
the change at the rollback gate books nothing again. Then the reporter with a real audit store:
what it books of a step is its push records, whatever its result or gate payload says.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
import yaml

from bot.cli.demo import DEMO_CREDENTIALS
from bot.decisions.reporter import ChangeReporter
from bot.runtime.wiring import Runtime
from labsim import Lab, demo_topology
from storage.audit_store import AuditStore
from storage.db import make_engine, upgrade_engine
from tests.bot.chat import THREAD, RecordingAdapter, ask, click
from tests.bot.test_e2e_console import running_bot
from tests.support.sealing import SEALING
from workflow.api import Finished, RollbackGate
from workflow.hashing import lines_sha256
from workflow.model import ResponseItem
from workflow.phases.reviews import RollbackLines, RollbackReview
from workflow.results.push_records import PushRecord
from workflow.results.responses import build_response

ROUTERS = ("R1", "R2", "R3")
STATIC = "apply static_route to R1,R2,R3 prefix=10.99.0.0/16 next_hop=10.0.12.2"


@pytest.fixture
async def lab() -> AsyncIterator[Lab]:
    refused = {name: ["^show ip route"] for name in ROUTERS}  # a read these routers lack
    async with Lab.start(demo_topology(3), reject=refused, **DEMO_CREDENTIALS) as lab:
        yield lab


def checked_like_real_routers(hosts: Path) -> None:
    """The lab's inventory without its `simulator` mark: labbot runs the post-checks."""
    inventory = yaml.safe_load(hosts.read_text())
    for host in inventory.values():
        host["data"].pop("simulator")
    hosts.write_text(yaml.safe_dump(inventory))


@asynccontextmanager
async def checked_bot(tmp_path: Path, lab: Lab, chat: RecordingAdapter) -> AsyncIterator[Runtime]:
    """The bot on `lab`, its routers post-checked like real ones."""
    hosts = lab.write_inventory(tmp_path / "hosts.yaml")
    checked_like_real_routers(hosts)
    async with running_bot(tmp_path, lab, chat, inventory=hosts) as bot:
        yield bot


async def test_applied_lines_stay_pushed_when_the_post_check_read_is_refused(
    tmp_path: Path, lab: Lab
) -> None:
    chat = RecordingAdapter()
    async with checked_bot(tmp_path, lab, chat) as bot:
        await bot.service.handle(ask(STATIC, "alice"))
        await bot.service.handle(click(chat, "bob"))  # the template
        await bot.service.handle(click(chat, "bob"))  # execute
        _, rollback = chat.last_gate()
        change = await bot.audit.latest_change_for_thread(THREAD.key)
        assert change is not None
        at_gate = await bot.audit.entries(change_id=change.change_id)
        await bot.service.handle(click(chat, "bob", "cancel"))  # keep the change as pushed
        summary = await bot.audit.change_summary(change.change_id)
    assert "*Post-checks failed* for change" in rollback.text and "(of 3 checked)" in rollback.text
    for name in ROUTERS:
        assert "ip route 10.99.0.0 255.255.0.0 10.0.12.2" in lab.device(name).running_config()
    assert summary is not None and summary.events[-1].status == "failed"
    pushes = {push.device: push for push in summary.pushes}
    assert sorted(pushes) == list(ROUTERS) and len(summary.pushes) == 3  # booked once
    for name, push in pushes.items():
        assert (push.status, push.detail) == ("success", "1 line(s) pushed and verified")
        assert push.post_check == "failed"
        assert "show ip route" in (push.post_check_detail or ""), push.post_check_detail
        assert push.before_backup == f"{change.change_id}/{name}/before"
        assert push.after_backup == f"{change.change_id}/{name}/after"
    assert [e.device for e in at_gate if e.kind == "push"] == sorted(ROUTERS)  # at the gate


async def test_the_audit_rows_of_a_push_are_its_steps_push_records(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite+aiosqlite:///{tmp_path / 'audit.db'}")
    await upgrade_engine(engine)
    audit = AuditStore(engine, chain=SEALING)
    await audit.record_change(
        "chg-1",
        thread_key=THREAD.key,
        platform=THREAD.platform,
        channel=THREAD.channel,
        requester_id="console:alice",
        requester_name="alice",
        text=STATIC,
    )
    reporter = ChangeReporter(adapter=RecordingAdapter(), audit=audit)
    told = build_response([ResponseItem(id="R1", name="R1", status="failed", error="timeout")])
    shown = RollbackReview(
        push=told, post_checks=build_response([]), devices={"R1": RollbackLines(lines=["x"])}
    )
    gate = RollbackGate("int-1", "rollback", "chg-1", shown, "s" * 64, "2999-01-01T00:00:00+00:00")
    await reporter.present(THREAD, gate)  # its payload shows a push; the step made none
    refused = ResponseItem(id="R2", name="R2", status="failed", error="show ip route was refused")
    record = PushRecord(
        device="R2",
        lines=["ip route 10.99.0.0 255.255.0.0 10.0.12.2"],
        before_backup="chg-1/R2/before",
        after_backup=None,
        push=ResponseItem(id="R2", name="R2", status="success"),
        post_check=refused,
    )
    done = Finished("chg-1", "failed", "", told, {}, pushes=(record,))
    await reporter.present(THREAD, done)
    rows = [entry for entry in await audit.entries(change_id="chg-1") if entry.kind == "push"]
    summary = await audit.change_summary("chg-1")
    await engine.dispose()
    assert [(r.device, r.status, r.post_check) for r in rows] == [("R2", "success", "failed")]
    assert rows[0].sha256 == lines_sha256(record["lines"])
    assert rows[0].post_check_detail == "show ip route was refused"
    assert summary is not None
    [push] = summary.pushes
    assert (push.before_backup, push.after_backup) == ("chg-1/R2/before", None)
