"""End to end through the decision service with the real graph, saver and simulated lab."""

from __future__ import annotations

import asyncio
import io
import json
import signal
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from pydantic import SecretStr
from rich.console import Console

from adapters.chat import Decision
from adapters.console.adapter import ConsoleAdapter
from bot.audit.table import chain_break, render_entries
from bot.cli.demo import DEMO_CREDENTIALS, demo_settings
from bot.commands.registry import command_words
from bot.runtime.wiring import Runtime, open_runtime
from bot.settings import load_settings
from labsim import Lab, demo_topology
from storage.audit_records import Ballot
from storage.db import make_engine
from tests.bot.chat import THREAD, RecordingAdapter, ask, click, person
from tests.bot.driver import gate_of, read_until_done, start_driver
from tests.support.masks import MASK
from tests.support.postgres import SHARED_AUDIT_KEY, SHARED_STORAGE_KEY, fresh_postgres_database
from workflow.devices.inventories.static import StaticInventory

REQUEST = "apply ospf to R1,R2"


@pytest.fixture
async def lab() -> AsyncIterator[Lab]:
    async with Lab.start(demo_topology(2), **DEMO_CREDENTIALS) as lab:
        yield lab


@asynccontextmanager
async def running_bot(
    tmp_path: Path,
    lab: Lab,
    adapter: RecordingAdapter,
    database_url: str = "",
    inventory: Path | None = None,
    **policy: Any,
) -> AsyncIterator[Runtime]:
    """The bot on `lab` (its inventory written, unless `inventory` gives one)."""
    settings = demo_settings(load_settings(data_dir=tmp_path, **policy))
    if database_url:
        shared = {
            "database_url": database_url,
            "audit_key": SecretStr(SHARED_AUDIT_KEY),
            "storage_key": SecretStr(SHARED_STORAGE_KEY),
        }
        settings = settings.model_copy(update=shared)
    hosts = inventory or lab.write_inventory(tmp_path / "hosts.yaml")
    async with open_runtime(settings, adapter, inventory=StaticInventory(hosts)) as runtime:
        yield runtime


async def test_two_users_change_the_lab_and_audit_names_the_approver(
    tmp_path: Path, lab: Lab
) -> None:
    chat = RecordingAdapter()
    async with running_bot(tmp_path, lab, chat) as bot:
        await bot.service.handle(ask(REQUEST, "alice"))
        assert "Step 1 of 2" in chat.last_gate()[1].text
        await bot.service.handle(click(chat, "bob"))
        assert "Step 2 of 2" in chat.last_gate()[1].text
        assert "router ospf" not in lab.device("R1").running_config()  # nothing before Execute
        await bot.service.handle(click(chat, "bob"))
        change = await bot.audit.latest_change_for_thread(THREAD.key)
        assert change is not None
        summary = await bot.audit.change_summary(change.change_id)
        await bot.service.handle(ask(f"audit change={change.change_id}", "carol"))
    who = chat.messages()[-1]
    assert who.text == "Who confirmed it"
    assert "template gate: approve by bob (console:bob)" in who.blocks[0].text
    assert "params gate: approve by bob (console:bob)" in who.blocks[0].text
    assert "push R1: ✓ success" in who.blocks[0].text
    assert "router ospf 1" in lab.device("R1").running_config()
    assert "router ospf 1" in lab.device("R2").running_config()
    assert any("pushed: ✓ 2 ✗ 0 of 2" in text for text in chat.texts())
    footers = [m.footer for _, m in chat.updates if m.footer]
    assert len(footers) == 2 and all(f.startswith("✅ Approved by bob") for f in footers)
    assert summary is not None and summary.requester_name == "alice"
    assert [(g.gate, g.resolution.actor_name) for g in summary.gates if g.resolution] == [
        ("template", "bob"),
        ("params", "bob"),
    ]
    assert {p.device: p.status for p in summary.pushes} == {"R1": "success", "R2": "success"}


async def test_allow_list_and_self_approval_refusals_are_private_and_recorded(
    tmp_path: Path, lab: Lab
) -> None:
    chat = RecordingAdapter()
    policy = {"approvers": ["console:bob", "console:alice"]}
    async with running_bot(tmp_path, lab, chat, **policy) as bot:
        await bot.service.handle(ask(REQUEST, "alice"))
        await bot.service.handle(click(chat, "alice"))  # the requester
        await bot.service.handle(click(chat, "carol"))  # not an approver
        assert "Step 1 of 2" in chat.last_gate()[1].text  # still waiting
        await bot.service.handle(click(chat, "bob"))
        assert "Step 2 of 2" in chat.last_gate()[1].text
        refusals = [e for e in await bot.audit.entries() if e.kind == "refusal"]
    assert any("four-eyes" in text for text in chat.said_to("console:alice"))
    assert any("not an approver" in text for text in chat.said_to("console:carol"))
    assert {(r.actor_name, r.gate) for r in refusals} == {
        ("alice", "template"),
        ("carol", "template"),
    }


async def test_two_concurrent_clicks_decide_once_and_push_once(tmp_path: Path, lab: Lab) -> None:
    chat = RecordingAdapter()
    async with running_bot(tmp_path, lab, chat) as bot:
        await bot.service.handle(ask(REQUEST, "alice"))
        await asyncio.gather(
            bot.service.handle(click(chat, "bob")), bot.service.handle(click(chat, "carol"))
        )
        gates = [m for m in chat.messages() if m.buttons]
        assert len(gates) == 2  # the template gate, then exactly one params gate
        clicks = [click(chat, "bob"), click(chat, "carol")]
        await asyncio.gather(*(bot.service.handle(c) for c in clicks))
        entries = await bot.audit.entries()
    already = chat.said_to("console:bob") + chat.said_to("console:carol")
    assert len([t for t in already if "already approved" in t]) == 2
    assert len([e for e in entries if e.kind == "resolved"]) == 2
    assert sorted(e.device for e in entries if e.kind == "push") == ["R1", "R2"]
    assert lab.device("R1").commands_seen.count("router ospf 1") == 1


async def test_audit_in_three_formats_and_tampering_detected(tmp_path: Path, lab: Lab) -> None:
    chat = RecordingAdapter()
    async with running_bot(tmp_path, lab, chat) as bot:
        await bot.service.handle(ask(REQUEST, "alice"))
        await bot.service.handle(click(chat, "bob"))
        await bot.service.handle(click(chat, "bob", "cancel"))
        await bot.service.handle(ask("audit user=bob"))
        entries = await bot.audit.entries(user="bob")
        assert (await bot.audit.verify()).ok
    assert "Audit:" in chat.texts()[-1] and "bob" in chat.messages()[-1].blocks[0].text
    as_json = json.loads(render_entries(entries, "json", MASK))
    assert {e["kind"] for e in as_json} >= {"decision", "resolved"}
    assert all(e["actor_name"] == "bob" for e in as_json)
    csv_lines = render_entries(entries, "csv", MASK).splitlines()
    assert csv_lines[0].startswith("seq,at,kind") and len(csv_lines) == len(entries) + 1
    assert "cancel" in render_entries(entries, "table", MASK)
    database = tmp_path / "labbot.db"
    engine = make_engine(f"sqlite+aiosqlite:///{database}")
    async with engine.begin() as conn:
        await conn.execute(sa.text("UPDATE decisions SET actor_name = 'mallory' WHERE seq = 2"))
    await engine.dispose()
    async with running_bot(tmp_path, lab, RecordingAdapter()) as bot:
        report = await bot.audit.verify()
    said = chain_break(report.first_broken)
    assert not report.ok and said.startswith("decisions#1: content does not match its hash"), said


async def test_crash_between_gate_and_click_then_restart_resumes(tmp_path: Path, lab: Lab) -> None:
    database = f"sqlite+aiosqlite:///{tmp_path / 'crash.db'}"
    inventory = lab.write_inventory(tmp_path / "hosts.yaml")
    process = start_driver("start", database, str(inventory), THREAD.thread, "alice", REQUEST)
    try:
        interrupt_id, sha256 = gate_of(await asyncio.to_thread(read_until_done, process))
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()
    chat = RecordingAdapter()
    async with running_bot(tmp_path, lab, chat, database_url=database) as bot:
        gate = await bot.workflow.pending_gate(THREAD.key)
        assert gate is not None and gate.interrupt_id == interrupt_id
        await bot.service.handle(click_by_id(interrupt_id, sha256, "bob"))
        assert "Step 2 of 2" in chat.last_gate()[1].text


def click_by_id(interrupt_id: str, sha256: str, who: str) -> Decision:
    return Decision(THREAD, person(who), interrupt_id, "approve", sha256)


async def test_two_processes_on_one_postgres_resume_a_gate_once(
    tmp_path: Path, lab: Lab, postgres_url: str
) -> None:
    async with fresh_postgres_database(postgres_url) as database:
        chat = RecordingAdapter()
        async with running_bot(tmp_path, lab, chat, database_url=database) as bot:
            await bot.service.handle(ask(REQUEST, "alice"))
            interrupt_id, sha256 = gate_of(
                [{"post": {"buttons": [{"value": chat.last_gate()[1].buttons[0].value}]}}]
            )
        inventory = str(tmp_path / "hosts.yaml")
        workers = [
            start_driver("decide", database, inventory, THREAD.thread, who, interrupt_id, sha256)
            for who in ("bob", "carol")
        ]
        outputs = [await asyncio.to_thread(read_until_done, w) for w in workers]
        for worker in workers:
            worker.wait()
        async with running_bot(tmp_path, lab, RecordingAdapter(), database_url=database) as bot:
            gate = await bot.workflow.pending_gate(THREAD.key)
            resolved = [e for e in await bot.audit.entries() if e.kind == "resolved"]
    params_gates = [
        line
        for out in outputs
        for line in out
        if "Step 2 of 2" in line.get("post", {}).get("text", "")
    ]
    refused = [
        line
        for out in outputs
        for line in out
        if "already approved" in line.get("post", {}).get("text", "")
    ]
    assert len(params_gates) == 1 and len(refused) == 1
    assert len(resolved) == 1 and gate is not None and gate.gate == "params"


async def test_an_expired_gate_is_refused_and_ends_the_change(tmp_path: Path, lab: Lab) -> None:
    chat = RecordingAdapter()
    policy = {"approvers": ["console:bob"]}
    async with running_bot(tmp_path, lab, chat, gate_ttl_seconds=0.5, **policy) as bot:
        await bot.service.handle(ask(REQUEST, "alice"))
        await asyncio.sleep(0.6)
        await bot.service.handle(click(chat, "mallory"))  # policy first, even on an expired gate
        assert await bot.workflow.outcome(THREAD.key) is None
        await bot.service.handle(click(chat, "bob"))
        outcome = await bot.workflow.outcome(THREAD.key)
        entries = await bot.audit.entries()
    assert any("not an approver" in text for text in chat.said_to("console:mallory"))
    assert any("expired" in text for text in chat.said_to("console:bob"))
    assert outcome is not None and outcome.status == "expired"
    assert [e.actor_name for e in entries if e.kind == "refusal"] == ["mallory", "bob"]
    assert not [e for e in entries if e.kind in ("decision", "resolved")]
    assert chat.updates[-1][1].footer.startswith("⌛ Expired at")
    assert "router ospf" not in lab.device("R1").running_config()


async def test_modify_sends_feedback_to_the_planner_and_shows_a_new_preview(
    tmp_path: Path, lab: Lab
) -> None:
    chat = RecordingAdapter()
    async with running_bot(tmp_path, lab, chat) as bot:
        await bot.service.handle(ask(REQUEST, "alice"))
        await bot.service.handle(click(chat, "bob"))
        first = chat.last_gate()[1]
        await bot.service.handle(click(chat, "bob", "modify", feedback="area=1"))
        second = chat.last_gate()[1]
    assert second is not first and "Step 2 of 2" in second.text
    assert any("area 1" in block.text for block in second.blocks)
    assert chat.updates[-1][1].footer.startswith("✏️ Modification requested by bob")
    assert "area=1" in chat.updates[-1][1].footer


async def test_the_template_gate_shows_the_values_the_request_gave(
    tmp_path: Path, lab: Lab
) -> None:
    chat = RecordingAdapter()
    async with running_bot(tmp_path, lab, chat) as bot:
        await bot.service.handle(ask("configure OSPF area 1 on all routers hello-interval 5"))
    gate = chat.last_gate()[1]
    assert "Step 1 of 2" in gate.text
    shown = "\n".join(block.text for block in gate.blocks)
    assert 'area: str = "1" (from the request; default "0")' in shown
    assert "hello_interval: int = 5 (from the request) (optional)" in shown
    assert "process_id: int = 1 — OSPF process id" in shown  # not given: its default


async def test_push_gate_waits_for_two_different_approvers(tmp_path: Path, lab: Lab) -> None:
    chat = RecordingAdapter()
    async with running_bot(tmp_path, lab, chat, push_approvals=2) as bot:
        await bot.service.handle(ask(REQUEST, "alice"))
        await bot.service.handle(click(chat, "bob"))  # template gate: one approval is enough
        await bot.service.handle(click(chat, "bob"))
        await bot.service.handle(click(chat, "bob"))  # the same person again does not count
        assert "router ospf" not in lab.device("R1").running_config()
        await bot.service.handle(click(chat, "carol"))
        change = await bot.audit.latest_change_for_thread(THREAD.key)
        assert change is not None
        summary = await bot.audit.change_summary(change.change_id)
    assert any("(1 of 2)" in text for text in chat.texts())
    assert any("already approved" in text for text in chat.said_to("console:bob"))
    assert "router ospf 1" in lab.device("R1").running_config()
    assert summary is not None
    params = next(g for g in summary.gates if g.gate == "params")
    assert [v.actor_name for v in params.votes] == ["bob", "carol"]


async def test_a_decision_recorded_by_a_process_that_died_is_resumed_by_the_next_click(
    tmp_path: Path, lab: Lab
) -> None:
    chat = RecordingAdapter()
    async with running_bot(tmp_path, lab, chat) as bot:
        await bot.service.handle(ask(REQUEST, "alice"))
        gate = await bot.workflow.pending_gate(THREAD.key)
        assert gate is not None
        recorded = Ballot(  # what a replica that died right after recording had done
            change_id=gate.change_id,
            gate=gate.gate,
            interrupt_id=gate.interrupt_id,
            choice="approve",
            content_sha256=gate.sha256,
            feedback=None,
            actor_id="console:bob",
            actor_name="bob",
            platform="console",
            channel=THREAD.channel,
        )
        await bot.audit.decide(recorded)
        await bot.service.handle(click(chat, "carol"))
        pending = await bot.workflow.pending_gate(THREAD.key)
    assert any("already approved by bob" in text for text in chat.said_to("console:carol"))
    assert pending is not None and pending.gate == "params"
    assert "Step 2 of 2" in chat.last_gate()[1].text


async def test_a_console_session_hears_why_a_change_ended_and_quits(
    tmp_path: Path, lab: Lab
) -> None:
    """Typed in the console as a person would: the thread says, in the bot's words, why the
    change ended (unknown device; a status read back from storage), and `quit` ends it."""
    out = io.StringIO()
    typed = "apply ospf to R1,R9\nstatus\nquit\napply ospf to R1\n"
    console = ConsoleAdapter(
        Console(file=out, width=400, no_color=True),
        source=io.StringIO(typed),
        command_words=command_words(),
    )
    settings = demo_settings(load_settings(data_dir=tmp_path))
    inventory = StaticInventory(lab.write_inventory(tmp_path / "hosts.yaml"))
    async with open_runtime(settings, console, inventory=inventory) as runtime:
        await asyncio.wait_for(console.run(runtime.service.handle), 60)
        changes = await runtime.audit.recent_change_records()
    said = out.getvalue()
    why = (
        "failed: which devices? there is no device 'R9' (lab devices: R1, R2, SW1); nothing was "
        "read or pushed"
    )
    assert said.count(why) == 2, said  # when it ended, and `status` reading it back
    assert len(changes) == 1 and "router ospf" not in lab.device("R1").running_config()
