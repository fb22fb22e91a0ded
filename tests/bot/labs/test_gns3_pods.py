"""A class of pods on one bot: a real gns3-server hosting three projects `pod-1`..`pod-3` with
the same node names, found by the labs file's pattern and mapped to Slack channels `#pod-1`..
`#pod-3` (the stand-in). The nodes' consoles are answered by simulated devices on the ports GNS3
allocated (gns3-server runs no images here: tests/workflow/devices/gns3server.py). Three changes
are asked and executed at once, each device changed once and only in its own pod, each audit row
naming its lab; a student's approval in another pod is refused, the instructor's accepted."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from labsim.device import SimDevice
from tests.bot.labs.slack_labs import slack_labs
from tests.fakes.slack_api import SlackApiStandIn
from tests.workflow.devices.gns3server import GNS3Server, running_gns3
from tests.workflow.devices.rig import SECRET
from tests.workflow.devices.test_gns3 import consoles_on

pytestmark = [pytest.mark.gns3, pytest.mark.xdist_group("gns3")]
PODS = ("pod-1", "pod-2", "pod-3")
STUDENTS = {"pod-1": "U0ANN", "pod-2": "U0BEN", "pod-3": "U0CAT"}
CHANNELS = {"pod-1": "C0POD1", "pod-2": "C0POD2", "pod-3": "C0POD3"}
ROUTERS = ("R1", "R2")


@pytest.fixture(scope="module")
def gns3_pods(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[GNS3Server, dict[str, dict[str, int]]]]:
    """A v2 server with the three pods (and a project that is no pod); each pod's consoles."""
    with running_gns3("v2", tmp_path_factory.mktemp("gns3pods")) as server:
        consoles: dict[str, dict[str, int]] = {}
        for pod in PODS:
            project = server.call("POST", "/projects", {"name": pod})
            nodes = {r: server.qemu_node(project["project_id"], r, "vios") for r in ROUTERS}
            server.link(project["project_id"], nodes["R1"], 0, nodes["R2"], 0)
            consoles[pod] = {r: node["console"] for r, node in nodes.items()}
        server.call("POST", "/projects", {"name": "teacher-lab"})
        yield server, consoles


def labs_file(server: GNS3Server) -> str:
    students = "\n".join(f"      {pod}: [{who}]" for pod, who in STUDENTS.items())
    return f"""\
pods:
  ccna:
    gns3: {{url: "{server.url}", projects: pod-*}}
    slack: "#pod-*"
    instructors: [U0TEACH]
    students:
{students}
"""


@contextlib.asynccontextmanager
async def pod_consoles(
    consoles: dict[str, dict[str, int]],
) -> AsyncIterator[dict[str, dict[str, SimDevice]]]:
    async with contextlib.AsyncExitStack() as stack:
        sims = {
            pod: await stack.enter_async_context(
                consoles_on({r: ("cisco_ios", port) for r, port in ports.items()})
            )
            for pod, ports in consoles.items()
        }
        yield sims


async def test_three_pods_changed_at_once_each_in_its_own_pod(
    gns3_pods: tuple[GNS3Server, dict[str, dict[str, int]]],
    tmp_path: Path,
    slack_api: SlackApiStandIn,
) -> None:
    server, consoles = gns3_pods
    slack_api.channels.update({channel: pod for pod, channel in CHANNELS.items()})
    async with (
        pod_consoles(consoles) as sims,
        slack_labs(tmp_path, slack_api, labs_file(server), device_secret=SECRET) as bot,
    ):
        assert sorted(bot.router.runtimes) == list(PODS)  # teacher-lab matches no pattern
        asked = {
            pod: await bot.mention(
                CHANNELS[pod],
                f"configure ntp on all routers servers=10.0.{n}.1",
                user=STUDENTS[pod],
            )
            for n, pod in enumerate(PODS, 1)
        }

        async def approve(pod: str) -> None:
            channel, thread = CHANNELS[pod], asked[pod]
            template = await bot.gate(channel, thread, "Approve")
            if pod == "pod-1":  # another pod's student: refused, told where theirs is
                await bot.press(template, "Approve", user="U0BEN", name="ben")
                await bot.api.wait_for(
                    lambda: any("student of pod-2" in e["text"] for e in bot.api.ephemerals)
                )
            await bot.press(template, "Approve", user="U0TEACH", name="teacher")
            execute = await bot.gate(channel, thread, "Execute")
            await bot.press(execute, "Execute", user="U0TEACH", name="teacher")
            await bot.said(channel, thread, "pushed", within=180)

        await asyncio.gather(*(approve(pod) for pod in PODS))
        for n, pod in enumerate(PODS, 1):
            for router in ROUTERS:
                config = sims[pod][router].running_config()
                assert f"ntp server 10.0.{n}.1" in config, (pod, router, config)
                others = [f"ntp server 10.0.{m}.1" for m in range(1, 4) if m != n]
                assert not any(line in config for line in others), (pod, router, config)

        audit = await bot.router.runtimes["pod-1"].audit.entries()
        pushes = sorted((e.lab, e.device) for e in audit if e.kind == "push")
        assert pushes == sorted((pod, r) for pod in PODS for r in ROUTERS)  # each once
        assert all(e.lab in PODS for e in audit), [(e.kind, e.lab) for e in audit]
        refusals = [e for e in audit if e.kind == "refusal"]
        assert [(e.lab, e.actor_id) for e in refusals] == [("pod-1", "U0BEN")]
