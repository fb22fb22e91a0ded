"""Post-checks in the change graph (library planner, real SQLAlchemySaver, recording gateway):
passed checks in the result; failed ones offer a rollback gate that pushes exactly the lines it
showed when approved, keeps the change when not, and is resumed by interrupt id and hash."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest

from bot.views.ending import ending_line, rollback_line
from bot.views.postcheck import item_body
from storage.checkpointer import SQLAlchemySaver
from tests.support.masks import MASK
from tests.workflow.gateways import RecordingGateway, two_router_lab
from workflow.api import ChangeWorkflow, Finished, Gate, GateDecision
from workflow.library.planner import LibraryPlanner
from workflow.nodes.change import Nodes

THREAD = "console:terminal:t1"
STATIC = "apply static_route to R1,R2 prefix=10.99.0.0/16 next_hop=10.0.12.9"


@pytest.fixture
async def saver(tmp_path: Path) -> AsyncIterator[SQLAlchemySaver]:
    async with SQLAlchemySaver.from_url(f"sqlite+aiosqlite:///{tmp_path / 'g.db'}") as saver:
        yield saver


def decide(gate: Gate, choice: str = "approve", who: str = "bob") -> GateDecision:
    return GateDecision(choice=choice, sha256=gate.sha256, actor_id=who, actor_name=who)  # type: ignore[typeddict-item]


async def pushed(
    saver: SQLAlchemySaver, lab: RecordingGateway
) -> tuple[ChangeWorkflow, Gate | Finished]:
    wf = ChangeWorkflow(checkpointer=saver, nodes=Nodes(LibraryPlanner(), lab))
    template = await wf.start(THREAD, change_id="chg-7", text=STATIC, requester={"id": "alice"})
    assert isinstance(template, Gate) and template.payload["post_checks"]["checks"] == [
        {"kind": "routes", "param": "prefix", "protocol": "static"}
    ]
    params = await wf.resume(THREAD, template, decide(template))
    assert isinstance(params, Gate) and params.gate == "params"
    return wf, await wf.resume(THREAD, params, decide(params))


async def test_passed_post_checks_are_in_each_devices_result(saver: SQLAlchemySaver) -> None:
    lab = two_router_lab()
    _, done = await pushed(saver, lab)
    assert isinstance(done, Finished) and done.status == "done", done
    assert done.result is not None and done.result["successful"] == 2
    for item in done.result["data"]:
        assert "✓ route 10.99.0.0/16 installed by static" in item_body(item)
    assert done.result["metadata"]["post_checks"]["success"] is True
    [checked] = lab.checked
    assert {e.key for e in checked["R1"]} == {"10.99.0.0/16"}


async def test_failed_post_checks_offer_a_rollback_that_restores_the_configs(
    saver: SQLAlchemySaver,
) -> None:
    lab = two_router_lab()
    lab.unconverged["R2"] = "not_in_table"
    wf, gate = await pushed(saver, lab)
    assert isinstance(gate, Gate) and gate.gate == "rollback", gate
    payload = gate.payload
    assert payload["post_checks"]["failed"] == 1
    assert item_body(payload["push"]["data"][1]).endswith("not in the routing table")
    lines = {name: device["lines"] for name, device in payload["devices"].items()}
    assert lines == {"R1": ["no ip route 10.99.0.0 255.255.0.0 10.0.12.9"]} | {
        "R2": ["no ip route 10.99.0.0 255.255.0.0 10.0.12.9"]
    }
    stale = replace(gate, interrupt_id="not-the-interrupt")  # resumed by interrupt id only
    shown_again = await wf.resume(THREAD, stale, decide(gate))
    assert isinstance(shown_again, Gate) and shown_again.sha256 == gate.sha256
    assert len(lab.pushes) == 1  # the change's own push; no rollback
    gate = shown_again
    done = await wf.resume(THREAD, gate, decide(gate, who="carol"))
    assert isinstance(done, Finished) and done.status == "failed"
    assert ending_line(done, MASK) == "rollback pushed to 2 of 2 devices"
    assert done.rollback is not None and done.newer_versions == {}
    assert (done.rollback["kind"], done.rollback["actor"]) == ("rolled_back", "carol")
    said = rollback_line(done.rollback, MASK)
    assert said.startswith("post-checks failed (R2: route 10.99.0.0/16: not in the routing table")
    assert "(after 30 s)); rolled back as approved by carol" in said
    assert lab.pushes[-1].change_id == "chg-7:rollback" and lab.pushes[-1].plan == lines
    assert all("10.99.0.0" not in config for config in lab.configs.values())


async def test_keeping_the_change_pushes_nothing_more(saver: SQLAlchemySaver) -> None:
    lab = two_router_lab()
    lab.unconverged["R1"] = "not_in_table"
    wf, gate = await pushed(saver, lab)
    assert isinstance(gate, Gate) and gate.gate == "rollback"
    done = await wf.resume(THREAD, gate, decide(gate, "cancel", "carol"))
    assert isinstance(done, Finished) and done.status == "failed"
    assert done.rollback is not None
    assert (done.rollback["kind"], done.rollback["actor"]) == ("kept", "carol")
    assert [push.change_id for push in lab.pushes] == ["chg-7"]
    assert all("ip route 10.99.0.0" in config for config in lab.configs.values())
    assert done.result is not None and done.result["failed"] == 1
