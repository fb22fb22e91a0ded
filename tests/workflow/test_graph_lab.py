"""The whole change over the simulated lab: library planner, real SQLAlchemySaver, NornirGateway
with the real lock and backup stores, devices reached over telnet like GNS3 consoles."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.views.ending import ending_line
from bot.views.failure import failure_text
from labsim.lab import Lab
from storage.checkpointer import SQLAlchemySaver
from storage.config_backups import ConfigBackupStore
from storage.encryption import StorageKeys, new_key
from storage.locks import DeviceLockStore
from tests.support.masks import MASK
from workflow.api import ChangeWorkflow, Finished, Gate, GateDecision
from workflow.devices.gateway import NornirGateway
from workflow.devices.inventories.static import StaticInventory
from workflow.library.planner import LibraryPlanner
from workflow.model import PushProgress
from workflow.nodes.change import Nodes

USERNAME, PASSWORD, SECRET = "labadmin", "lab-pw-1", "lab-enable-1"


@dataclass
class Rig:
    lab: Lab
    workflow: ChangeWorkflow


@pytest.fixture
async def rig(tmp_path: Path) -> AsyncIterator[Rig]:
    """Three routers and a switch, the workflow's checkpoints, locks and backups in one file."""
    async with (
        SQLAlchemySaver.from_url(f"sqlite+aiosqlite:///{tmp_path / 'labbot.db'}") as saver,
        Lab.start(3, ssh=False, username=USERNAME, password=PASSWORD, secret=SECRET) as lab,
    ):
        gateway = NornirGateway(
            StaticInventory(lab.write_inventory(tmp_path / "hosts.yaml")),
            username=USERNAME,
            password=PASSWORD,
            secret=SECRET,
            locks=DeviceLockStore(saver.engine),
            backups=ConfigBackupStore(saver.engine, StorageKeys([new_key()])),
            say=failure_text,
            connect_timeout=3,
            read_timeout=6,
        )
        nodes = Nodes(LibraryPlanner(), gateway)
        workflow = ChangeWorkflow(checkpointer=saver, nodes=nodes)
        yield Rig(lab, workflow)


def approve(gate: Gate) -> GateDecision:
    return GateDecision(choice="approve", sha256=gate.sha256, actor_id="U2", actor_name="bob")


async def run_change(
    rig: Rig, thread: str, text: str, change_id: str, rollback_of: str | None = None
) -> tuple[Gate, Finished, list[PushProgress]]:
    """Start a change, approve both gates; the params gate, the outcome and the progress."""
    wf = rig.workflow
    gate = await wf.start(
        thread, change_id=change_id, text=text, requester={"id": "U1"}, rollback_of=rollback_of
    )
    assert isinstance(gate, Gate), gate
    params_gate = await wf.resume(thread, gate, approve(gate))
    assert isinstance(params_gate, Gate), params_gate
    progress: list[PushProgress] = []
    done = await wf.resume(thread, params_gate, approve(params_gate), progress.append)
    assert isinstance(done, Finished), done
    return params_gate, done, progress


async def test_ospf_reaches_the_simulated_routers_and_rolls_back(rig: Rig) -> None:
    params_gate, done, progress = await run_change(
        rig, "console:lab:1", "apply ospf to R1 R2 R3 area=0", "chg-ospf"
    )
    assert (done.status, ending_line(done, MASK)) == ("done", "pushed to 3 of 3 devices")
    for name in ("R1", "R2", "R3"):
        running = rig.lab.device(name).running_config()
        for line in params_gate.payload["devices"][name]["lines"]:
            assert line.strip() in running
    routers = ("R1", "R2", "R3")
    assert sorted((e.device, e.stage) for e in progress) == [
        (name, stage) for name in routers for stage in ("done", "started")
    ]
    assert "router ospf" not in rig.lab.device("SW1").running_config()

    rollback_gate, undone, _ = await run_change(
        rig, "console:lab:2", "roll back chg-ospf", "chg-undo", rollback_of="chg-ospf"
    )
    assert rollback_gate.payload["devices"]["R1"]["lines"] == ["no router ospf 1"]
    assert undone.status == "done"
    assert all("router ospf" not in rig.lab.device(n).running_config() for n in ("R1", "R2"))
