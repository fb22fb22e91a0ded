"""Upgrade without Docker: release 0.1.0's database (fixtures/release-0.1.0.sql, written by that
release's own code: a change pushed, one waiting at its parameter gate) restored into PostgreSQL
and upgraded by today's `labbot db upgrade`: from the release's revision to today's head, the
audit all there and intact, and the pending gate's click on its old message pushes (its template
declared no sections: the line it pushed is reported where it landed, the rollback offered), and
`labbot db reseal` seals the release's audit rows, which read and verify as before."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path

import pytest
import sqlalchemy as sa
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import CheckpointTuple

from labsim import demo_topology
from storage.audit_seal import SEALED_TABLES
from storage.checkpointer import SQLAlchemySaver
from storage.db import upgrade_database
from storage.encryption import StorageKeys, encrypted_serde
from storage.reseal import reseal_all
from storage.schema import SEAL_COLUMN, checkpoint_blobs
from tests.deploy.containers import pushes
from tests.deploy.release import as_released, dumped_revision, head_revision, release, restore
from tests.fakes.slack_api import PEOPLE, Posted, SlackApiStandIn
from tests.scale.deployment import deployment
from tests.scale.harness import LABBOT, serve_env
from tests.support.postgres import SHARED_STORAGE_KEY, fresh_postgres_database
from tests.workflow.gateways import two_router_lab
from workflow.api import ChangeWorkflow
from workflow.checkpoints.state_upgrade import PART_KEYS
from workflow.library.planner import LibraryPlanner
from workflow.nodes.change import Nodes
from workflow.state import ChangeState

pytestmark = pytest.mark.postgres
KEYED = {"LABBOT_AUDIT_KEY": "upgrade-test-audit-key"}  # today's rows keyed; the release's sha256


def labbot(env: dict[str, str], cwd: Path, *args: str) -> str:
    done = subprocess.run(
        [str(LABBOT), *args], env=env, cwd=cwd, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


async def test_labbot_db_upgrade_migrates_the_release_database(
    postgres_url: str, tmp_path: Path
) -> None:
    old = release()
    async with (
        fresh_postgres_database(postgres_url) as url,
        SlackApiStandIn(users=dict(PEOPLE)) as api,
    ):
        await asyncio.to_thread(restore, url)
        env = serve_env(url, api, None, **KEYED)
        migrated = await asyncio.to_thread(labbot, env, tmp_path, "db", "upgrade")
        kept = json.loads(
            await asyncio.to_thread(labbot, env, tmp_path, "audit", "--format", "json")
        )
        topology = demo_topology(2)
        async with deployment(tmp_path, url, api, topology, count=1, **KEYED) as lab:
            gate = Posted(**old["gate"])  # the gate's message, as Slack still shows it
            api.messages[gate.ts] = gate
            status, _ = await lab.slack.senders[0].interaction(old["click"])
            result = await lab.slack.said(old["thread"], "Lines landed outside")
        after = json.loads(
            await asyncio.to_thread(labbot, env, tmp_path, "audit", "--format", "json")
        )
        verified = await asyncio.to_thread(labbot, env, tmp_path, "audit", "verify")
        # the release's audit rows (and today's) sealed; none changes, the chain holds
        resealed = await asyncio.to_thread(labbot, env, tmp_path, "db", "reseal")
        in_clear = await asyncio.to_thread(audit_rows_in_clear, url)
        sealed = json.loads(
            await asyncio.to_thread(labbot, env, tmp_path, "audit", "--format", "json")
        )
        still = await asyncio.to_thread(labbot, env, tmp_path, "audit", "verify")

    assert old["revision"] == dumped_revision() == "0003"  # what the release left
    assert f"database at revision {head_revision()}" in migrated
    assert as_released(kept, old["audit"]) == old["audit"]  # every row, as the release showed it
    assert as_released(after, old["audit"]) == old["audit"]
    assert "Approved by <@U3>" in gate.all_text
    # the release's template declared no sections: what its push did is reported where it
    # landed, with the rollback offered
    assert "ntp server 10.66.0.2" in result.all_text and "Roll back returns" in result.all_text
    assert pushes(after) == [
        (old["changes"]["pushed"], "R1", "success"),  # pushed by the release
        (old["changes"]["pending"], "R2", "success"),  # decided and pushed after the upgrade
    ]
    assert status == 200
    assert f"audit chain intact: {len(after)} row(s) verified" in verified  # old rows and new
    assert "resealed:" in resealed and "changes 2" in resealed, resealed
    assert in_clear == 0 and sealed == after
    assert f"audit chain intact: {len(after)} row(s) verified" in still


def audit_rows_in_clear(url: str) -> int:
    """Audit rows with free text not sealed (written before sealing, not resealed yet)."""
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            return sum(
                conn.execute(
                    sa.select(sa.func.count()).where(table.c[SEAL_COLUMN].is_(None))
                ).scalar_one()
                for table in SEALED_TABLES
            )
    finally:
        engine.dispose()


async def test_the_release_checkpoints_load_sealed_and_reseal(postgres_url: str) -> None:
    """The release wrote its checkpoints in clear: under today's sealing serializer its pending
    gate loads as it was, and after `reseal` every value is sealed and loads the same."""
    old = release()
    thread = {"configurable": {"thread_id": f"slack:C1:{old['thread']}"}}
    keys = StorageKeys([SHARED_STORAGE_KEY])
    serde = encrypted_serde(keys)
    async with fresh_postgres_database(postgres_url) as url:
        await asyncio.to_thread(restore, url)
        await upgrade_database(url)
        async with SQLAlchemySaver.from_url(url, serde=serde) as saver:
            loaded = await saver.aget_tuple(thread)
            engine = saver.engine
            async with engine.begin() as conn:
                counts = await conn.run_sync(reseal_all, keys)
            resealed = await saver.aget_tuple(thread)
            async with engine.connect() as conn:
                types = set((await conn.execute(sa.select(checkpoint_blobs.c.type))).scalars())
    assert loaded is not None and resealed is not None
    assert old["pending_gate"]["interrupt_id"] in interrupt_ids(loaded)
    assert resealed.checkpoint == loaded.checkpoint
    assert resealed.pending_writes == loaded.pending_writes
    assert counts["checkpoints"] > 0 and counts["checkpoint_writes"] > 0
    assert all(kind.endswith("+fernet") for kind in types if kind != "empty")


async def test_the_release_state_is_upgraded_in_one_place(postgres_url: str) -> None:
    """The release kept its pending change in the flat state, without the keys added since (push
    records, where lines landed): loaded by the workflow, it is stored again in parts (same
    checkpoint) holding every value it kept, the added ones at their empty value, and its
    pending gate reads the same, with no push records made so far."""
    old = release()
    thread_id = f"slack:C1:{old['thread']}"
    config: RunnableConfig = {"configurable": {"thread_id": thread_id}}
    async with fresh_postgres_database(postgres_url) as url:
        await asyncio.to_thread(restore, url)
        await upgrade_database(url)
        serde = encrypted_serde(StorageKeys([SHARED_STORAGE_KEY]))
        async with SQLAlchemySaver.from_url(url, serde=serde) as saver:
            loaded = await saver.aget_tuple(config)
            nodes = Nodes(planner=LibraryPlanner(), gateway=two_router_lab())
            workflow = ChangeWorkflow(checkpointer=saver, nodes=nodes)
            gate = await workflow.pending_gate(thread_id)
            stored = await saver.aget_tuple(config)
    assert loaded is not None and stored is not None
    flat, parts = loaded.checkpoint["channel_values"], stored.checkpoint["channel_values"]
    assert {"pushes", "landed_outside"}.isdisjoint(flat)  # the release had neither
    assert "change_id" not in parts and set(ChangeState.__annotations__) <= set(parts)
    was = {(part, key): old for part, keys in PART_KEYS.items() for key, old in keys.items()}
    kept = {(part, key): flat[old] for (part, key), old in was.items() if old in flat}
    assert {(part, key): parts[part][key] for part, key in kept} == kept
    assert parts["outcome"] == flat["outcome"]
    assert (parts["push"]["records"], parts["checks"]["landed_outside"]) == ([], None)
    assert stored.checkpoint["id"] == loaded.checkpoint["id"]
    assert gate is not None and gate.interrupt_id == old["pending_gate"]["interrupt_id"]
    assert gate.records_before == 0


def interrupt_ids(found: CheckpointTuple) -> set[str]:
    return {
        pending.id
        for _, channel, value in found.pending_writes or []
        if channel == "__interrupt__"  # LangGraph's pending-interrupt write
        for pending in value
    }
