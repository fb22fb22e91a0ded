"""The change graph with the library planner, the real SQLAlchemySaver and a recording gateway:
both gates, double resume, stale hashes, restarts, expiry, Modify, Cancel, rollback."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from base.errors import GateError
from bot.views.ending import ending_line, why_ended
from storage.checkpointer import SQLAlchemySaver
from tests.support.masks import MASK
from tests.support.postgres import fresh_postgres_database
from tests.workflow.gateways import RecordingGateway, two_router_lab
from workflow.api import ChangeWorkflow, Finished, Gate, GateDecision, gate_problem
from workflow.hashing import content_sha256
from workflow.library.catalog import load_catalog
from workflow.library.planner import LibraryPlanner
from workflow.model import PushProgress, Topology
from workflow.nodes.change import Nodes
from workflow.options import WorkflowOptions
from workflow.phases.previews import preview_devices
from workflow.results.endings import GateEnding
from workflow.safety.deny import DenyList
from workflow.state import initial_state

THREAD = "slack:C1:1700000000.000100"
OSPF = "configure OSPF area 0 on all routers"
R1_LINES = [
    "router ospf 1",
    " router-id 1.1.1.1",
    " network 10.0.12.0 0.0.0.255 area 0",
    " network 1.1.1.1 0.0.0.0 area 0",
]


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = datetime(2026, 3, 20, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    return f"sqlite+aiosqlite:///{tmp_path / 'graph.db'}"


@pytest.fixture
async def saver(db_url: str) -> AsyncIterator[SQLAlchemySaver]:
    async with SQLAlchemySaver.from_url(db_url) as saver:
        yield saver


@pytest.fixture
def lab() -> RecordingGateway:
    return two_router_lab()


TEN_MINUTES = WorkflowOptions(gate_ttl_seconds=600)  # gates expire after ten minutes


def workflow(saver: SQLAlchemySaver, lab: RecordingGateway, **options: Any) -> ChangeWorkflow:
    nodes = Nodes(planner=LibraryPlanner(), gateway=lab, **options)
    return ChangeWorkflow(checkpointer=saver, nodes=nodes)


def decide(gate: Gate, choice: str = "approve", feedback: str | None = None) -> GateDecision:
    decision = GateDecision(choice=choice, sha256=gate.sha256, actor_id="U2", actor_name="bob")  # type: ignore[typeddict-item]
    if feedback is not None:
        decision["feedback"] = feedback
    return decision


async def start(wf: ChangeWorkflow, text: str = OSPF, thread: str = THREAD, **kw: Any) -> Any:
    return await wf.start(thread, change_id="chg-1", text=text, requester={"id": "U1"}, **kw)


async def to_params_gate(wf: ChangeWorkflow, thread: str = THREAD, **kw: Any) -> Gate:
    template_gate = await start(wf, thread=thread, **kw)
    assert isinstance(template_gate, Gate), template_gate
    params_gate = await wf.resume(thread, template_gate, decide(template_gate))
    assert isinstance(params_gate, Gate), params_gate
    return params_gate


async def test_full_run_with_the_library_planner_pushes_what_the_params_gate_showed(
    saver: SQLAlchemySaver, lab: RecordingGateway
) -> None:
    wf = workflow(saver, lab)
    template_gate = await start(wf)
    assert isinstance(template_gate, Gate)
    assert (template_gate.gate, template_gate.change_id) == ("template", "chg-1")
    assert template_gate.payload["name"] == "ospf" and template_gate.payload["source"] == "library"
    assert "router ospf 1" in template_gate.payload["example_rendering"]["cisco_ios"]
    assert template_gate.sha256 == content_sha256(template_gate.payload)
    assert await wf.pending_gate(THREAD) == template_gate

    params_gate = await wf.resume(THREAD, template_gate, decide(template_gate))
    assert isinstance(params_gate, Gate) and params_gate.gate == "params"
    r1 = params_gate.payload["devices"]["R1"]
    assert r1["lines"] == R1_LINES
    assert r1["diff"].splitlines()[0] == "+ router ospf 1"
    assert params_gate.payload["template"]["sha256"] == template_gate.sha256

    progress: list[PushProgress] = []

    async def collect(event: PushProgress) -> None:
        progress.append(event)

    done = await wf.resume(THREAD, params_gate, decide(params_gate), collect)
    assert isinstance(done, Finished) and done.status == "done"
    assert done.result is not None and done.result["successful"] == 2
    [push] = lab.pushes
    assert push.plan == {d: p["lines"] for d, p in params_gate.payload["devices"].items()}
    assert "router ospf 1" in lab.configs["R1"]
    assert [(e.device, e.stage) for e in progress] == [
        ("R1", "started"), ("R1", "done"), ("R2", "started"), ("R2", "done"),
    ]  # fmt: skip
    assert done.tokens["total"]["total_tokens"] == 0  # the library costs no tokens
    assert await wf.pending_gate(THREAD) is None
    assert await wf.outcome(THREAD) == done


async def test_full_run_on_postgresql(postgres_url: str, lab: RecordingGateway) -> None:
    thread = "matrix:!room:example.org:$event"
    async with (
        fresh_postgres_database(postgres_url) as url,
        SQLAlchemySaver.from_url(url) as saver,
    ):
        wf = workflow(saver, lab)
        params_gate = await to_params_gate(wf, thread)
        done = await wf.resume(thread, params_gate, decide(params_gate))
    assert isinstance(done, Finished) and done.status == "done"
    assert lab.pushes[0].plan["R1"] == R1_LINES


async def test_a_decided_gate_is_stale_and_a_changed_hash_is_told_apart(
    saver: SQLAlchemySaver, lab: RecordingGateway
) -> None:
    """The one check a click passes (under the thread's lock, in the decision service), on the
    gate as the graph keeps it."""
    wf = workflow(saver, lab)
    params_gate = await to_params_gate(wf)
    pending = await wf.pending_gate(THREAD)
    assert gate_problem(pending, params_gate.interrupt_id, "0" * 64) == "changed"
    assert gate_problem(pending, params_gate.interrupt_id, params_gate.sha256) is None
    first = await wf.resume(THREAD, params_gate, decide(params_gate))
    assert isinstance(first, Finished) and first.status == "done"
    pending = await wf.pending_gate(THREAD)
    assert gate_problem(pending, params_gate.interrupt_id, params_gate.sha256) == "stale"
    assert len(lab.pushes) == 1


async def test_a_resume_by_an_interrupt_id_not_pending_applies_nothing(
    saver: SQLAlchemySaver, lab: RecordingGateway
) -> None:
    """LangGraph hands a node the whole resume map when its id is not the pending one: the gate
    is shown again, nothing is approved or pushed."""
    wf = workflow(saver, lab)
    params_gate = await to_params_gate(wf)
    shown_again = await wf.resume(
        THREAD, replace(params_gate, interrupt_id="not-the-interrupt"), decide(params_gate)
    )
    assert isinstance(shown_again, Gate) and shown_again.sha256 == params_gate.sha256
    assert shown_again.interrupt_id != params_gate.interrupt_id and lab.pushes == []
    done = await wf.resume(THREAD, shown_again, decide(shown_again))
    assert isinstance(done, Finished) and done.status == "done"


async def test_an_unknown_choice_is_refused(saver: SQLAlchemySaver, lab: RecordingGateway) -> None:
    wf = workflow(saver, lab)
    gate = await start(wf)
    with pytest.raises(GateError, match="unknown choice 'execute'"):
        unknown: Any = {**decide(gate), "choice": "execute"}
        await wf.resume(THREAD, gate, unknown)
    assert await wf.pending_gate(THREAD) == gate


async def test_a_gate_survives_a_restart(db_url: str, lab: RecordingGateway) -> None:
    async with SQLAlchemySaver.from_url(db_url) as saver:
        params_gate = await to_params_gate(workflow(saver, lab))
    async with SQLAlchemySaver.from_url(db_url) as reopened:  # a new process, the same file
        wf = workflow(reopened, lab)
        assert await wf.pending_gate(THREAD) == params_gate
        done = await wf.resume(THREAD, params_gate, decide(params_gate))
    assert isinstance(done, Finished) and done.status == "done"
    assert lab.pushes[0].plan["R1"] == R1_LINES


async def test_a_decision_after_expiry_ends_the_change_as_expired(
    saver: SQLAlchemySaver, lab: RecordingGateway
) -> None:
    clock = Clock()
    wf = workflow(saver, lab, clock=clock, options=TEN_MINUTES)
    params_gate = await to_params_gate(wf)
    assert params_gate.expires_at == (clock.now + timedelta(seconds=600)).isoformat()
    clock.now += timedelta(seconds=601)
    expired = await wf.resume(THREAD, params_gate, decide(params_gate))
    assert isinstance(expired, Finished) and expired.status == "expired"
    assert expired.ending == GateEnding(
        kind="expired", gate="params", at=params_gate.expires_at, actor="", pushed=False
    )
    assert lab.pushes == []


async def test_an_expired_gate_ends_in_nobodys_name_and_only_once_expired(
    saver: SQLAlchemySaver, lab: RecordingGateway
) -> None:
    clock = Clock()
    wf = workflow(saver, lab, clock=clock, options=TEN_MINUTES)
    params_gate = await to_params_gate(wf)
    shown_again = await wf.expire(THREAD, params_gate)  # not expired yet
    assert isinstance(shown_again, Gate) and shown_again.sha256 == params_gate.sha256
    clock.now += timedelta(seconds=601)
    pending = await wf.pending_gate(THREAD)  # that interrupt was replaced
    assert gate_problem(pending, params_gate.interrupt_id, params_gate.sha256) == "stale"
    expired = await wf.expire(THREAD, shown_again)
    assert isinstance(expired, Finished) and expired.status == "expired"
    assert expired.ending is not None and expired.ending["actor"] == ""  # nobody's choice
    assert expired.ending["kind"] == "expired" and expired.ending["gate"] == "params"
    assert lab.pushes == []


async def test_a_decision_just_before_expiry_counts(
    saver: SQLAlchemySaver, lab: RecordingGateway
) -> None:
    clock = Clock()
    wf = workflow(saver, lab, clock=clock, options=TEN_MINUTES)
    params_gate = await to_params_gate(wf)
    clock.now += timedelta(seconds=599)
    done = await wf.resume(THREAD, params_gate, decide(params_gate))
    assert isinstance(done, Finished) and done.status == "done"


async def test_cancel_ends_the_change_and_nothing_is_pushed(
    saver: SQLAlchemySaver, lab: RecordingGateway
) -> None:
    wf = workflow(saver, lab)
    params_gate = await to_params_gate(wf)
    cancelled = await wf.resume(THREAD, params_gate, decide(params_gate, "cancel"))
    assert isinstance(cancelled, Finished) and cancelled.status == "cancelled"
    assert cancelled.ending is not None and cancelled.ending["kind"] == "cancelled"
    assert (cancelled.ending["gate"], cancelled.ending["actor"]) == ("params", "bob")
    assert cancelled.ending["pushed"] is False
    assert lab.pushes == [] and await wf.pending_gate(THREAD) is None


async def test_modify_at_the_params_gate_sends_the_feedback_to_the_planner(
    saver: SQLAlchemySaver, lab: RecordingGateway
) -> None:
    wf = workflow(saver, lab)
    params_gate = await to_params_gate(wf)
    modified = await wf.resume(THREAD, params_gate, decide(params_gate, "modify", "area=1"))
    assert isinstance(modified, Gate) and modified.gate == "params"
    assert modified.interrupt_id != params_gate.interrupt_id
    assert " network 10.0.12.0 0.0.0.255 area 1" in modified.payload["devices"]["R1"]["lines"]
    done = await wf.resume(THREAD, modified, decide(modified))
    assert isinstance(done, Finished) and done.status == "done"
    assert " network 10.0.12.0 0.0.0.255 area 1" in lab.pushes[0].plan["R1"]


async def test_a_new_change_waits_while_a_gate_is_pending(
    saver: SQLAlchemySaver, lab: RecordingGateway
) -> None:
    wf = workflow(saver, lab)
    await start(wf)
    with pytest.raises(GateError, match="still waits for its template review"):
        await start(wf)


async def test_a_failed_device_makes_the_change_failed_with_per_device_results(
    saver: SQLAlchemySaver, lab: RecordingGateway
) -> None:
    lab.failing.add("R2")
    wf = workflow(saver, lab)
    params_gate = await to_params_gate(wf)
    finished = await wf.resume(THREAD, params_gate, decide(params_gate))
    assert isinstance(finished, Finished) and finished.status == "failed"
    assert ending_line(finished, MASK) == "pushed to 1 of 2 devices; failed: R2: timed out"
    assert finished.result is not None
    assert [i["status"] for i in finished.result["data"]] == ["success", "failed"]


async def test_a_rollback_is_its_own_change_through_both_gates(
    saver: SQLAlchemySaver, lab: RecordingGateway
) -> None:
    wf = workflow(saver, lab)
    params_gate = await to_params_gate(wf)
    await wf.resume(THREAD, params_gate, decide(params_gate))
    assert "router ospf 1" in lab.configs["R1"]

    undo = "slack:C1:1700000999.000100"
    template_gate = await wf.start(
        undo, change_id="chg-2", text="roll back chg-1", requester={"id": "U1"}, rollback_of="chg-1"
    )
    assert isinstance(template_gate, Gate) and template_gate.payload["source"] == "rollback"
    # undoing `router ospf 1` removes a whole routing process: allowed, and said so at the gate
    assert template_gate.payload["allow"] == [
        "routing-process (control-plane and routing kill switch): removes a whole routing process"
    ]
    rollback_gate = await wf.resume(undo, template_gate, decide(template_gate))
    assert isinstance(rollback_gate, Gate)
    assert rollback_gate.payload["devices"]["R1"]["lines"] == ["no router ospf 1"]
    assert rollback_gate.payload["devices"]["R1"]["diff"].startswith("- router ospf 1")
    done = await wf.resume(undo, rollback_gate, decide(rollback_gate))
    assert isinstance(done, Finished) and done.status == "done"
    assert "router ospf" not in lab.configs["R1"]
    assert "ip address 10.0.12.1 255.255.255.0" in lab.configs["R1"]


async def test_a_request_the_library_does_not_understand_fails_with_its_help(
    saver: SQLAlchemySaver, lab: RecordingGateway
) -> None:
    finished = await start(workflow(saver, lab), text="make the lab faster please on R1")
    assert isinstance(finished, Finished) and finished.status == "failed"
    assert ending_line(finished, MASK).startswith("the planner could not propose a template:")
    assert "apply" in ending_line(finished, MASK)  # the library's usage help reaches the user


async def test_push_refuses_a_plan_whose_hash_was_not_approved(lab: RecordingGateway) -> None:
    """The push node's own check, on a state whose approval does not cover the previews."""
    nodes = Nodes(LibraryPlanner(), lab, clock=Clock(), options=TEN_MINUTES)
    state = initial_state("chg-1", OSPF, {}, None)
    topology: Topology = {"devices": await lab.facts(["R1"]), "links": [], "unusable": []}
    template = load_catalog().as_proposal("hostname", ["R1"])
    params = {"R1": {"hostname": "core1"}}
    previews, errors = preview_devices(template, params, topology, DenyList())
    state["lab"]["topology"], state["template"]["proposal"] = topology, template
    state["params"]["previews"] = previews
    assert errors == []
    state["gates"]["approved"] = {"template": "a" * 64, "params": "b" * 64}
    command = await nodes.push(state)
    assert isinstance(command.update, dict)
    outcome = command.update["outcome"]
    assert outcome["status"] == "blocked"
    assert outcome["ending"]["kind"] == "hash_mismatch"
    assert why_ended(outcome["ending"], None, MASK).startswith("refused to push: the plan's hash")
    assert lab.pushes == []
