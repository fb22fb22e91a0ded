"""SQLAlchemySaver beyond the conformance suite: a real graph across restarts, the sync façade,
values stored once per version, metadata filters that are data and never SQL."""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, Any, TypedDict

import pytest
from langgraph.checkpoint.base import empty_checkpoint
from langgraph.checkpoint.serde.types import ERROR
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt

from base.errors import StorageError
from storage.checkpointer import SQLAlchemySaver
from storage.db import make_engine
from storage.postgres_worker import PostgresWorker, merged, split
from tests.support.postgres import fresh_postgres_database


class ChangeState(TypedDict, total=False):
    request: str
    template: str
    params: dict[str, Any]
    log: Annotated[list[str], operator.add]


def build_graph(saver: SQLAlchemySaver) -> Any:
    def propose_template(state: ChangeState) -> ChangeState:
        return {"template": f"router ospf 1 # {state['request']}", "log": ["template proposed"]}

    def review_template(state: ChangeState) -> ChangeState:
        answer = interrupt({"gate": "template", "shows": state["template"]})
        return {"log": [f"template {answer}"]}

    def propose_params(state: ChangeState) -> ChangeState:
        return {"params": {"R1": {"area": 0}}, "log": ["params proposed"]}

    def review_params(state: ChangeState) -> ChangeState:
        answer = interrupt({"gate": "params", "shows": state["params"]})
        return {"log": [f"params {answer}"]}

    def push(state: ChangeState) -> ChangeState:
        return {"log": ["pushed"]}

    graph = StateGraph(ChangeState)
    steps = [propose_template, review_template, propose_params, review_params, push]
    for step in steps:
        graph.add_node(step.__name__, step)
    for a, b in zip(
        [START, *[s.__name__ for s in steps]], [*[s.__name__ for s in steps], END], strict=True
    ):
        graph.add_edge(a, b)
    return graph.compile(checkpointer=saver)


async def pending_gate(database_url: str, config: Any) -> tuple[str, dict[str, Any]]:
    async with SQLAlchemySaver.from_url(database_url) as saver:
        state = await build_graph(saver).aget_state(config)
    (pending,) = state.interrupts
    return pending.id, pending.value


async def test_two_gates_resume_across_restarts(database_url: str) -> None:
    """Each phase runs on a fresh saver and engine, as after a process restart; the graph picks
    up at the pending gate, by interrupt id, and nothing before a gate runs twice."""
    config = {"configurable": {"thread_id": "slack:C1:1700.1"}}
    async with SQLAlchemySaver.from_url(database_url) as saver:
        graph = build_graph(saver)
        # the first phase goes through the sync façade, from a worker thread
        await asyncio.to_thread(graph.invoke, {"request": "OSPF area 0", "log": []}, config)

    template_id, shown = await pending_gate(database_url, config)
    assert shown == {"gate": "template", "shows": "router ospf 1 # OSPF area 0"}
    async with SQLAlchemySaver.from_url(database_url) as saver:
        await build_graph(saver).ainvoke(Command(resume={template_id: "approved"}), config)

    params_id, shown = await pending_gate(database_url, config)
    assert params_id != template_id
    assert shown == {"gate": "params", "shows": {"R1": {"area": 0}}}
    async with SQLAlchemySaver.from_url(database_url) as saver:
        final = await build_graph(saver).ainvoke(Command(resume={params_id: "approved"}), config)
    assert final["log"] == [
        "template proposed",
        "template approved",
        "params proposed",
        "params approved",
        "pushed",
    ]


async def test_sync_methods_work_from_threads_and_refuse_on_the_loop(database_url: str) -> None:
    async with SQLAlchemySaver.from_url(database_url) as saver:
        config: Any = {"configurable": {"thread_id": "t-sync", "checkpoint_ns": ""}}
        checkpoint: Any = {
            **empty_checkpoint(),
            "channel_values": {"x": {"a": 1}},
            "channel_versions": {"x": "1"},
        }
        stored = await asyncio.to_thread(saver.put, config, checkpoint, {"step": 0}, {"x": "1"})
        await asyncio.to_thread(saver.put_writes, stored, [("x", {"a": 2})], "task-1")
        found = await asyncio.to_thread(saver.get_tuple, config)
        assert found is not None and found.checkpoint["channel_values"] == {"x": {"a": 1}}
        assert found.pending_writes == [("task-1", "x", {"a": 2})]
        listed = await asyncio.to_thread(lambda: list(saver.list(config)))
        assert [t.config for t in listed] == [stored]
        with pytest.raises(StorageError, match="on its event loop's thread"):
            saver.get_tuple(config)


async def test_a_value_is_stored_once_per_version(database_url: str) -> None:
    async with SQLAlchemySaver.from_url(database_url) as saver:
        config: Any = {"configurable": {"thread_id": "t-blobs", "checkpoint_ns": ""}}
        versions: dict[str, Any] = {}
        for step in range(5):
            changed = ["plan", "progress"] if step == 0 else ["progress"]
            for channel in changed:
                versions[channel] = saver.get_next_version(versions.get(channel), None)
            values = {"plan": {"devices": ["R1", "R2"]}, "progress": {"step": step}}
            checkpoint: Any = {
                **empty_checkpoint(),
                "channel_versions": dict(versions),
                "channel_values": values,
            }
            config = await saver.aput(
                config, checkpoint, {"step": step}, {c: versions[c] for c in changed}
            )
        async with saver.engine.connect() as conn:
            rows = await conn.exec_driver_sql(
                "SELECT channel, count(*) FROM checkpoint_blobs GROUP BY channel ORDER BY channel"
            )
            assert [tuple(r) for r in rows] == [("plan", 1), ("progress", 5)]
        latest = await saver.aget_tuple(config)
        assert latest is not None
        assert latest.checkpoint["channel_values"] == {
            "plan": {"devices": ["R1", "R2"]},
            "progress": {"step": 4},
        }


async def test_metadata_filters_are_data_not_sql(database_url: str) -> None:
    async with SQLAlchemySaver.from_url(database_url) as saver:
        config: Any = {"configurable": {"thread_id": "t-filter", "checkpoint_ns": ""}}
        evil = "x' OR '1'='1"
        for step, note in enumerate([evil, "plain"]):
            metadata: Any = {"step": step, "note": note}
            await saver.aput(config, empty_checkpoint(), metadata, {})

        async def count(filter: dict[str, Any]) -> int:
            return len([t async for t in saver.alist(config, filter=filter)])

        assert await count({"note": evil}) == 1
        assert await count({"note') OR 1=1 --": "plain"}) == 0
        assert await count({'note" OR 1=1 --': "plain"}) == 0
        assert await count({"step": 1, "note": "plain"}) == 1
        assert await count({}) == 2  # the table is still there, with both rows


async def test_a_dropped_postgres_connection_is_replaced_transparently(postgres_url: str) -> None:
    """The saver's pool does not ping before each use; an operation that meets a connection the
    server dropped (restart, failover) runs again on a fresh one instead of failing."""
    async with (
        fresh_postgres_database(postgres_url) as url,
        SQLAlchemySaver.from_url(url) as saver,
    ):
        config: Any = {"configurable": {"thread_id": "t-drop", "checkpoint_ns": ""}}
        stored = await saver.aput(config, empty_checkpoint(), {"step": 0}, {})
        admin = make_engine(url)
        async with admin.connect() as conn:
            killed = await conn.exec_driver_sql(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
            assert killed.scalar() == 1  # the pooled connection the saver used
        await admin.dispose()
        found = await saver.aget_tuple(config)
        assert found is not None and found.config == stored


async def test_ordinary_writes_keep_the_first_and_special_writes_the_last(
    database_url: str,
) -> None:
    """A retried task's writes are insert-or-ignore; error/interrupt writes are upserted, as in
    the official savers (a task that failed again shows its latest error)."""
    async with SQLAlchemySaver.from_url(database_url) as saver:
        config: Any = {"configurable": {"thread_id": "t-writes", "checkpoint_ns": ""}}
        stored = await saver.aput(config, empty_checkpoint(), {"step": 0}, {})
        await asyncio.gather(
            saver.aput_writes(stored, [("proposal", "first")], "task-1"),
            saver.aput_writes(stored, [(ERROR, "timeout")], "task-2"),
        )
        await asyncio.gather(
            saver.aput_writes(stored, [("proposal", "retried")], "task-1"),
            saver.aput_writes(stored, [(ERROR, "refused")], "task-2"),
        )
        found = await saver.aget_tuple(stored)
        assert found is not None
        assert sorted(found.pending_writes or []) == [
            ("task-1", "proposal", "first"),
            ("task-2", ERROR, "refused"),
        ]


def owned_checkpoint(saver: SQLAlchemySaver, owner: str) -> tuple[Any, dict[str, Any]]:
    """A checkpoint whose blob value names its thread, and the new versions to put with it."""
    version = saver.get_next_version(None, None)
    checkpoint: Any = {
        **empty_checkpoint(),
        "channel_values": {"plan": {"owner": owner}},
        "channel_versions": {"plan": version},
    }
    return checkpoint, {"plan": version}


async def test_threads_saving_at_once_each_read_back_their_own(database_url: str) -> None:
    """Eight threads put, write and read at the same moment (on PostgreSQL the worker runs each
    kind queued together as one statement): every caller gets its own thread's checkpoint,
    value, metadata and writes, nothing of another's."""
    async with SQLAlchemySaver.from_url(database_url) as saver:
        owners = [f"t-{n}" for n in range(8)]

        async def put(owner: str) -> Any:
            config: Any = {"configurable": {"thread_id": owner, "checkpoint_ns": ""}}
            checkpoint, versions = owned_checkpoint(saver, owner)
            stored = await saver.aput(config, checkpoint, {"owner": owner}, versions)
            await saver.aput_writes(stored, [("log", f"{owner} wrote")], "task-1")
            return stored

        async def listed(config: Any) -> list[Any]:
            return [t async for t in saver.alist(config, limit=3)]

        stored = await asyncio.gather(*(put(owner) for owner in owners))
        latest = await asyncio.gather(*(saver.aget_tuple(config) for config in stored))
        lists = await asyncio.gather(*(listed(config) for config in stored))
    for owner, config, found, (only,) in zip(owners, stored, latest, lists, strict=True):
        for each in (found, only):
            assert each is not None and each.config == config
            assert each.checkpoint["channel_values"] == {"plan": {"owner": owner}}
            assert each.metadata["owner"] == owner
            assert each.pending_writes == [("task-1", "log", f"{owner} wrote")]


async def test_one_checkpoint_put_twice_at_once_keeps_one(database_url: str) -> None:
    """The same checkpoint (and the same error write) saved twice at the same moment: both
    callers hear success and one copy is kept, as when they come one after the other."""
    async with SQLAlchemySaver.from_url(database_url) as saver:
        config: Any = {"configurable": {"thread_id": "t-twice", "checkpoint_ns": ""}}
        checkpoint, versions = owned_checkpoint(saver, "t-twice")
        first, second = await asyncio.gather(
            saver.aput(config, checkpoint, {"try": 1}, versions),
            saver.aput(config, checkpoint, {"try": 2}, versions),
        )
        assert first == second
        await asyncio.gather(
            saver.aput_writes(first, [(ERROR, "timeout")], "task-1"),
            saver.aput_writes(first, [(ERROR, "refused")], "task-1"),
        )
        found = [t async for t in saver.alist(config)]
    assert len(found) == 1 and found[0].metadata["try"] in (1, 2)
    (write,) = found[0].pending_writes or []
    assert write in (("task-1", ERROR, "timeout"), ("task-1", ERROR, "refused"))


@pytest.mark.postgres
async def test_reads_merged_into_one_statement_each_get_their_own(postgres_url: str) -> None:
    """On PostgreSQL, reads of one shape with different threads, limits and metadata filters,
    and the same read twice, run as one statement: each gets what it gets when run alone."""
    reads: list[dict[str, Any]] = [
        {"thread_id": "a", "limit": 1}, {"thread_id": "a", "limit": 3},
        {"thread_id": "b", "limit": 2}, {"thread_id": "a", "limit": 3},
        {"thread_id": "a", "filter": {"step": 1}}, {"thread_id": "a", "filter": {"step": 2}},
        {"thread_id": "b", "filter": {"owner": "b"}}, {"thread_id": "a", "filter": {"step": 2}},
    ]  # fmt: skip
    async with (
        fresh_postgres_database(postgres_url) as url,
        SQLAlchemySaver.from_url(url) as saver,
    ):
        for owner, steps in (("a", 4), ("b", 3)):
            config: Any = {"configurable": {"thread_id": owner, "checkpoint_ns": ""}}
            for step in range(steps):
                checkpoint, versions = owned_checkpoint(saver, owner)
                config = await saver.aput(
                    config, checkpoint, {"owner": owner, "step": step}, versions
                )
        alone = [await read_alone(saver, read) for read in reads]
        planned = [saver.sql.plan(ns="", **read) for read in reads]
        worker = PostgresWorker(saver.engine)
        together: list[list[Any]] = []
        for group in (planned[:4], planned[4:]):
            statements = [saver.sql.read_statement(shape, params) for shape, params in group]
            assert len({s.sql for s in statements}) == 1  # one shape: they merge
            rows = await worker.run(merged(statements))
            together += [saver.sql.decode(part or []) for part in split(rows, len(statements))]
        await worker.close()
    assert [[t.metadata["step"] for t in found] for found in alone] == [
        [3], [3, 2, 1], [2, 1], [3, 2, 1], [1], [2], [2, 1, 0], [2],
    ]  # fmt: skip
    assert together == alone


async def read_alone(saver: SQLAlchemySaver, read: dict[str, Any]) -> list[Any]:
    config = {"configurable": {"thread_id": read["thread_id"], "checkpoint_ns": ""}}
    return [
        t async for t in saver.alist(config, limit=read.get("limit"), filter=read.get("filter"))
    ]
