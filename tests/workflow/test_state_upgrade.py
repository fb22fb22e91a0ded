"""Changes stored before the graph state had its per-phase parts load with today's code, show
their pending gate, and are decided to the end.

The fixture (tests/workflow/fixtures/flat-state.sql, the SQLite database written by
tests/workflow/flat_state_writer.py at the commit its .json names) holds two changes in the flat
state: one at its template gate, one at its parameter gate. Its gates expire a day after they
were made, so the bot that decides them runs on a clock set an hour after
(tests/support/clock.py), whatever day the tests run; each decision a few minutes after the one
before (checkpoint ids grow with the clock: the newest is the one a thread goes on from).
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, closing
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from langchain_core.runnables import RunnableConfig
from pydantic import SecretStr

from bot.cli.demo import DEMO_CREDENTIALS, demo_settings
from bot.runtime.wiring import open_runtime
from bot.settings import load_settings
from labsim import Lab, demo_topology
from storage.checkpointer import SQLAlchemySaver
from storage.encryption import StorageKeys, encrypted_serde
from tests.bot.chat import RecordingAdapter, ask
from tests.bot.driver import gate_of, read_until_done, start_driver
from tests.support.clock import clock_at
from tests.support.postgres import SHARED_AUDIT_KEY, SHARED_STORAGE_KEY
from tests.workflow.gateways import two_router_lab
from workflow.api import ChangeWorkflow
from workflow.checkpoints.state_upgrade import parts_of
from workflow.checkpoints.write_upgrade import UnupgradableWrites
from workflow.devices.inventories.static import StaticInventory
from workflow.graph import build_graph
from workflow.library.planner import LibraryPlanner
from workflow.nodes.change import Nodes
from workflow.state import ChangeState, state_of
from workflow.step_progress import StepContext
from workflow.steps import pending_gate_of

FIXTURES = Path(__file__).parent / "fixtures"
STORED = json.loads((FIXTURES / "flat-state.json").read_text(encoding="utf-8"))
AT_TEMPLATE, AT_PARAMS = STORED["gates"]["t-template"], STORED["gates"]["t-params"]
# the gates were made at 12:00 UTC and expire at 12:00 the next day
AN_HOUR_LATER = datetime(2026, 12, 1, 13, 0, tzinfo=UTC)
MINUTES = timedelta(minutes=5)


@pytest.fixture
def database(tmp_path: Path) -> str:
    """The stored database, restored (the test changes it)."""
    with closing(sqlite3.connect(tmp_path / "labbot.db")) as db:
        db.executescript((FIXTURES / "flat-state.sql").read_text(encoding="utf-8"))
    return f"sqlite+aiosqlite:///{tmp_path / 'labbot.db'}"


@pytest.fixture
async def lab() -> AsyncIterator[Lab]:
    async with Lab.start(demo_topology(2), **DEMO_CREDENTIALS) as lab:
        yield lab


async def test_a_flat_checkpoint_is_upgraded_in_place_when_loaded(database: str) -> None:
    """Its pending gate is the one stored (same interrupt id, same hash); the checkpoint is
    stored again in parts, under the same id, with its pending writes, keeping every value."""
    thread = {"configurable": {"thread_id": AT_PARAMS["thread_key"]}}
    async with saver_of(database) as saver:
        stored = await saver.aget_tuple(thread)  # type: ignore[arg-type]
        workflow = ChangeWorkflow(
            checkpointer=saver, nodes=Nodes(planner=LibraryPlanner(), gateway=two_router_lab())
        )
        gate = await workflow.pending_gate(AT_PARAMS["thread_key"])
        upgraded = await saver.aget_tuple(thread)  # type: ignore[arg-type]
    assert stored is not None and upgraded is not None
    assert gate is not None and gate.gate == "params"
    assert (gate.interrupt_id, gate.sha256) == (AT_PARAMS["interrupt_id"], AT_PARAMS["sha256"])
    assert gate.change_id == AT_PARAMS["change_id"] and gate.expires_at == AT_PARAMS["expires_at"]
    flat, parts = stored.checkpoint["channel_values"], upgraded.checkpoint["channel_values"]
    assert "change_id" in flat and "change_id" not in parts
    assert {k: parts[k] for k in ChangeState.__annotations__} == parts_of(flat)
    assert upgraded.checkpoint["id"] == stored.checkpoint["id"]
    assert upgraded.pending_writes == stored.pending_writes


async def test_a_finished_tasks_flat_writes_are_applied_when_the_run_goes_on(
    database: str,
) -> None:
    """A crash after check_params finished and before its checkpoint was stored: the run goes on
    from the one before, with check_params's flat writes as parts: the params gate it reaches
    is the one stored (same hash, same expiry), previews and all."""
    forget_newest_checkpoint(database, AT_PARAMS["thread_key"])
    config: RunnableConfig = {"configurable": {"thread_id": AT_PARAMS["thread_key"]}}
    async with saver_of(database) as saver:
        graph = build_graph(Nodes(planner=LibraryPlanner(), gateway=two_router_lab()), saver)
        await graph.ainvoke(None, config, context=StepContext(None), durability="sync")
        snapshot = await graph.aget_state(config)
    gate, state = pending_gate_of(snapshot), state_of(snapshot)
    assert gate is not None and gate.gate == "params"
    assert (gate.sha256, gate.expires_at) == (AT_PARAMS["sha256"], AT_PARAMS["expires_at"])
    assert state is not None and set(state["params"]["previews"]) == {"R2"}


async def test_flat_writes_of_two_tasks_to_one_part_are_refused_loudly(
    database: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Two tasks' pending flat writes that set keys of one part cannot both be whole-part
    writes: the change is not read (nor resumed) without one of them; the log says what to do."""
    before = forget_newest_checkpoint(database, AT_PARAMS["thread_key"])
    async with saver_of(database) as saver:
        row = {"thread_id": AT_PARAMS["thread_key"], "checkpoint_ns": "", "checkpoint_id": before}
        await saver.aput_writes({"configurable": row}, [("device_params", {"R2": {}})], "other")
        workflow = ChangeWorkflow(
            checkpointer=saver, nodes=Nodes(planner=LibraryPlanner(), gateway=two_router_lab())
        )
        with pytest.raises(UnupgradableWrites, match="both set part 'params'"):
            await workflow.pending_gate(AT_PARAMS["thread_key"])
    assert f"thread {AT_PARAMS['thread_key']}" in caplog.text
    assert "ask for the change again" in caplog.text


def forget_newest_checkpoint(database: str, thread_key: str) -> str:
    """Drop the newest checkpoint of `thread_key` and its writes, as a crash before it was stored
    would have; the id of the one before, the thread's newest now."""
    with closing(sqlite3.connect(database.removeprefix("sqlite+aiosqlite:///"))) as db, db:
        (newest, parent) = db.execute(
            "SELECT checkpoint_id, parent_checkpoint_id FROM checkpoints WHERE thread_id = ? "
            "ORDER BY checkpoint_id DESC LIMIT 1",
            (thread_key,),
        ).fetchone()
        for table in ("checkpoints", "checkpoint_writes"):
            db.execute(
                f"DELETE FROM {table} WHERE thread_id = ? AND checkpoint_id = ?",
                (thread_key, newest),
            )
    return str(parent)


def saver_of(database: str) -> AbstractAsyncContextManager[SQLAlchemySaver]:
    """The saver on the stored database, with the key its values were stored with."""
    return SQLAlchemySaver.from_url(
        database, serde=encrypted_serde(StorageKeys([SHARED_STORAGE_KEY]))
    )


async def test_the_stored_gates_are_decided_to_the_end(
    tmp_path: Path, database: str, lab: Lab
) -> None:
    """carol executes the stored params gate: R2 is pushed; bob approves the stored template
    gate, carol the params gate it leads to: R1 is pushed; the audit names who decided."""
    hosts = str(lab.write_inventory(tmp_path / "hosts.yaml"))
    assert "router ospf" not in lab.device("R2").running_config()
    said = await decide(database, hosts, AT_PARAMS, "carol", AN_HOUR_LATER)
    assert "router ospf 1" in lab.device("R2").running_config(), said
    said = await decide(database, hosts, AT_TEMPLATE, "bob", AN_HOUR_LATER + MINUTES)
    params_gate = gate_of(said)
    assert "router ospf" not in lab.device("R1").running_config()  # nothing before Execute
    later = AN_HOUR_LATER + 2 * MINUTES
    said = await decide(database, hosts, AT_TEMPLATE, "carol", later, params_gate)
    assert "router ospf 1" in lab.device("R1").running_config(), said
    audit = await who_confirmed(tmp_path, database, AT_PARAMS["change_id"])
    assert "params gate: approve by carol (console:carol)" in audit
    assert "push R2: ✓ success" in audit
    audit = await who_confirmed(tmp_path, database, AT_TEMPLATE["change_id"])
    assert "template gate: approve by bob (console:bob)" in audit
    assert "params gate: approve by carol (console:carol)" in audit
    assert "push R1: ✓ success" in audit


async def decide(
    database: str,
    hosts: str,
    stored: dict[str, str],
    who: str,
    at: datetime,
    gate: tuple[str, str] | None = None,
) -> list[dict[str, Any]]:
    """`who` approves `gate` (default: the stored one) of the stored change, in a bot whose
    clock starts `at`; what the bot said."""
    interrupt_id, sha256 = gate or (stored["interrupt_id"], stored["sha256"])
    thread = stored["thread_key"].rsplit(":", 1)[-1]
    args = ("decide", database, hosts, thread, who, interrupt_id, sha256)
    # rendering in the bot's process: spawning render workers on a test machine under load
    # outlasted their first render's deadline (15 s), and they are not what this test is about
    env = {**clock_at(at), "LABBOT_RENDER_WORKERS": "0"}
    process = start_driver(*args, env=env)
    try:
        return await asyncio.to_thread(read_until_done, process)
    finally:
        process.wait()


async def who_confirmed(data_dir: Path, database: str, change_id: str) -> str:
    """What the bot answers `audit change=CHANGE` with (reading the audit needs no clock)."""
    settings = demo_settings(load_settings(data_dir=data_dir))
    keys = {"audit_key": SecretStr(SHARED_AUDIT_KEY), "storage_key": SecretStr(SHARED_STORAGE_KEY)}
    settings = settings.model_copy(update={"database_url": database, **keys})
    chat = RecordingAdapter()
    inventory = StaticInventory(data_dir / "hosts.yaml")
    async with open_runtime(settings, chat, inventory=inventory) as bot:
        await bot.service.handle(ask(f"audit change={change_id}", "dave"))
    answer = chat.messages()[-1]
    return "\n".join(block.text for block in answer.blocks)
