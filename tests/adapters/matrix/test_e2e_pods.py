"""A class of pods on Matrix, on a real Synapse and a real gns3-server: the pod group's
`matrix: "#…-pod-*:SERVER"` maps GNS3 projects pod-1 and pod-2 to the rooms with those aliases
(bot.runtime.lab_router, MatrixAdapter.place_names). A change asked in each room is pushed to
that pod's devices only; a student of pod-2 approving in pod-1's room is refused and told where
theirs is, the instructor's approval is taken (four-eyes as ever: the asker never approves)."""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from pydantic import SecretStr

from adapters.matrix.adapter import MatrixAdapter
from bot.runtime.lab_router import LabRouter, open_lab_router
from bot.runtime.serve_matrix import make_adapter
from tests.adapters.matrix.chat_user import ChatUser, running
from tests.adapters.matrix.labbot_harness import (
    PARAMS_STEP,
    TEMPLATE_STEP,
    BotThread,
    labbot_settings,
)
from tests.adapters.matrix.room_events import membership
from tests.fakes.synapse import MatrixAccount, Synapse
from tests.workflow.devices.gns3server import GNS3Server, running_gns3
from tests.workflow.devices.rig import SECRET
from tests.workflow.devices.test_gns3 import consoles_on

pytestmark = [pytest.mark.synapse, pytest.mark.gns3, pytest.mark.xdist_group("gns3")]
PODS = ("pod-1", "pod-2")
ROUTERS = ("R1", "R2")


def gns3_pod(server: GNS3Server, name: str) -> dict[str, int]:
    """Project `name` with R1—R2 on the server: each node's console port."""
    project = server.call("POST", "/projects", {"name": name})
    nodes = {r: server.qemu_node(project["project_id"], r, "vios") for r in ROUTERS}
    server.link(project["project_id"], nodes["R1"], 0, nodes["R2"], 0)
    return {r: node["console"] for r, node in nodes.items()}


@asynccontextmanager
async def serving_pods(
    synapse: Synapse, bot: MatrixAccount, tmp_path: Path, labs_file: str
) -> AsyncIterator[LabRouter]:
    """labbot as `labbot serve` runs it with LABBOT_LABS on Matrix: the router, the sync loop."""
    path = tmp_path / "labs.yaml"
    path.write_text(labs_file)
    settings = labbot_settings(synapse, bot, tmp_path, labs=path)
    settings = settings.model_copy(update={"device_secret": SecretStr(SECRET)})  # the consoles'
    adapter: MatrixAdapter = await make_adapter(settings, http=False, host="127.0.0.1", port=0)
    async with open_lab_router(settings, adapter) as router, running(adapter, router.handle):
        yield router


async def test_each_pod_answers_in_the_room_of_its_alias(
    synapse: Synapse,
    bot_account: MatrixAccount,
    tmp_path: Path,
    alice: ChatUser,
    bob: ChatUser,
    e2e_user: Callable[[str], Awaitable[ChatUser]],
) -> None:
    teacher = await e2e_user("teacher")
    bot_id, server_name = bot_account.user_id, bot_account.user_id.split(":", 1)[1]
    prefix = f"c{secrets.token_hex(3)}"  # one Synapse for the session: aliases of its own
    students = {"pod-1": alice, "pod-2": bob}
    rooms: dict[str, str] = {}
    for n, pod in enumerate(PODS, 1):
        others = [u.user_id for u in (alice, bob, teacher) if u is not students[pod]]
        rooms[pod] = await students[pod].create_room([bot_id, *others], alias=f"{prefix}-pod-{n}")
        for person in (alice, bob, teacher):
            if person is not students[pod]:
                await person.join(rooms[pod])

    with running_gns3("v2", tmp_path / "gns3") as gns3:
        consoles = {pod: gns3_pod(gns3, pod) for pod in PODS}
        gns3.call("POST", "/projects", {"name": "teacher-lab"})  # no pod: matches no pattern
        labs_file = f"""\
pods:
  ccna:
    gns3: {{url: "{gns3.url}", projects: pod-*}}
    matrix: "#{prefix}-pod-*:{server_name}"
    instructors: ["{teacher.user_id}"]
    students:
      pod-1: ["{alice.user_id}"]
      pod-2: ["{bob.user_id}"]
"""
        async with (
            contextlib.AsyncExitStack() as stack,
            serving_pods(synapse, bot_account, tmp_path, labs_file) as router,
        ):
            sims = {
                pod: await stack.enter_async_context(
                    consoles_on({r: ("cisco_ios", port) for r, port in ports.items()})
                )
                for pod, ports in consoles.items()
            }
            assert sorted(router.runtimes) == list(PODS)
            for room in rooms.values():  # invited before it started: joined on its first sync
                await teacher.wait_for(membership(room, bot_id, "join"))

            for n, pod in enumerate(PODS, 1):
                asker, room = students[pod], rooms[pod]
                request = f"!labbot configure ntp on all routers servers=10.0.{n}.1"
                thread = BotThread(teacher, room, await asker.say(room, request), bot_id)
                template = await thread.gate(TEMPLATE_STEP, within=120)
                if pod == "pod-1":  # another pod's student: refused, told where theirs is
                    await bob.react(room, template["event_id"], "✅")
                    await thread.says("student of pod-2", within=120)
                await asker.react(room, template["event_id"], "✅")  # four-eyes: not the asker
                await thread.says("someone else must approve", within=120)
                await teacher.react(room, template["event_id"], "✅")
                params = await thread.gate(PARAMS_STEP, within=120)
                await teacher.say(room, "execute", thread=thread.root, reply_to=params["event_id"])
                await thread.says("pushed", "✓ 2 ✗ 0 of 2", within=180)

            for n, pod in enumerate(PODS, 1):
                for router_name, sim in sims[pod].items():
                    config = sim.running_config()
                    assert f"ntp server 10.0.{n}.1" in config, (pod, router_name, config)
                    other = f"ntp server 10.0.{3 - n}.1"
                    assert other not in config, (pod, router_name, config)
            entries = await router.runtimes["pod-1"].audit.entries()

    pushes = sorted((e.lab, e.device) for e in entries if e.kind == "push")
    assert pushes == [(pod, r) for pod in PODS for r in ROUTERS]
    refusals = sorted((e.lab, e.actor_id) for e in entries if e.kind == "refusal")
    assert ("pod-1", bob.user_id) in refusals  # pod-2's student, in pod-1
    assert all(actor != teacher.user_id for _, actor in refusals)
    asked_in = {(e.lab, e.channel) for e in entries if e.kind == "change"}
    assert asked_in == {("pod-1", rooms["pod-1"]), ("pod-2", rooms["pod-2"])}
