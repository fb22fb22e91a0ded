"""Pods added and removed while labbot serves, on a real gns3-server with the Slack stand-in:
it starts with projects pod-1 and pod-2; pod-3 is created meanwhile, and the first request in
#pod-3 is answered by pod-3's lab (a burst of messages in channels that are no lab's among it
makes one lookup of the server's projects, not one each) and its change is pushed to pod-3's
devices only. pod-2's project is deleted: the next lookup finds it gone, and a request in
#pod-2 is refused in one line saying so (bot.runtime.pod_refresh)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from pathlib import Path
from typing import Any

import pytest

from bot.labs import pods as pod_lookup
from tests.bot.labs.slack_labs import slack_labs
from tests.bot.labs.test_gns3_pods import CHANNELS, ROUTERS, STUDENTS, labs_file
from tests.fakes.slack_api import SlackApiStandIn
from tests.workflow.devices.gns3server import GNS3Server, running_gns3
from tests.workflow.devices.rig import SECRET
from tests.workflow.devices.test_gns3 import consoles_on

pytestmark = [pytest.mark.gns3, pytest.mark.xdist_group("gns3")]
LOOKUP = 5.0  # LABBOT_LABS_LOOKUP_SECONDS: lookups begin at least this far apart
ELSEWHERE = [f"C0ELSE{n}" for n in range(10)]  # channels that are no lab's


def new_pod(server: GNS3Server, name: str) -> tuple[str, dict[str, int]]:
    """Project `name` with R1—R2, as an instructor makes it: its id and its consoles."""
    project = server.call("POST", "/projects", {"name": name})
    nodes = {r: server.qemu_node(project["project_id"], r, "vios") for r in ROUTERS}
    server.link(project["project_id"], nodes["R1"], 0, nodes["R2"], 0)
    return project["project_id"], {r: node["console"] for r, node in nodes.items()}


async def test_a_pod_made_while_serving_answers_and_a_pod_removed_is_gone(
    tmp_path: Path,
    slack_api: SlackApiStandIn,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="bot.runtime.pod_refresh")
    listings: list[float] = []  # each time the server's projects are listed
    real = pod_lookup.project_names

    async def listed(*args: Any, **kwargs: Any) -> list[str]:
        listings.append(time.monotonic())
        return await real(*args, **kwargs)

    monkeypatch.setattr(pod_lookup, "project_names", listed)
    slack_api.channels.update({channel: pod for pod, channel in CHANNELS.items()})
    slack_api.channels.update({channel: f"random-{n}" for n, channel in enumerate(ELSEWHERE)})

    with running_gns3("v2", tmp_path / "gns3") as server:
        ids, consoles = {}, {}
        for pod in ("pod-1", "pod-2"):
            ids[pod], consoles[pod] = new_pod(server, pod)
        async with (
            contextlib.AsyncExitStack() as stack,
            slack_labs(
                tmp_path,
                slack_api,
                labs_file(server),
                device_secret=SECRET,
                labs_lookup_seconds=LOOKUP,
                labs_refresh_seconds=0,
            ) as bot,
        ):
            assert sorted(bot.router.runtimes) == ["pod-1", "pod-2"]
            assert len(listings) == 1  # at start

            ids["pod-3"], consoles["pod-3"] = await asyncio.to_thread(new_pod, server, "pod-3")
            sims = {
                pod: await stack.enter_async_context(
                    consoles_on({r: ("cisco_ios", port) for r, port in ports.items()})
                )
                for pod, ports in consoles.items()
            }

            begun, before = time.monotonic(), len(listings)
            asked, *elsewhere = await asyncio.gather(
                bot.mention(
                    CHANNELS["pod-3"],
                    "configure ntp on all routers servers=10.0.3.1",
                    user=STUDENTS["pod-3"],
                ),
                *(
                    bot.mention(c, "configure ntp on all routers servers=10.9.9.9")
                    for c in ELSEWHERE
                ),
            )
            for channel, thread in zip(ELSEWHERE, elsewhere, strict=True):
                said = await bot.said(channel, thread, "no lab's")
                assert "this channel is no lab's" in said.text and "\n" not in said.text
            looked, took = len(listings) - before, time.monotonic() - begun
            assert 1 <= looked <= 1 + took / LOOKUP, (looked, took)  # not one per message

            template = await bot.gate(CHANNELS["pod-3"], asked, "Approve")
            assert "pod-3" in bot.router.runtimes
            await bot.press(template, "Approve", user=STUDENTS["pod-1"], name="ann")
            await bot.api.wait_for(
                lambda: any("student of pod-1" in e["text"] for e in bot.api.ephemerals)
            )
            await bot.press(template, "Approve", user="U0TEACH", name="teacher")
            execute = await bot.gate(CHANNELS["pod-3"], asked, "Execute")
            await bot.press(execute, "Execute", user="U0TEACH", name="teacher")
            await bot.said(CHANNELS["pod-3"], asked, "pushed", within=180)
            for pod, routers in sims.items():
                for router, sim in routers.items():
                    pushed = "ntp server 10.0.3.1" in sim.running_config()
                    assert pushed == (pod == "pod-3"), (pod, router, sim.running_config())
            audit = await bot.router.runtimes["pod-1"].audit.entries()
            pushes = sorted((e.lab, e.device) for e in audit if e.kind == "push")
            assert pushes == [("pod-3", "R1"), ("pod-3", "R2")]

            await asyncio.to_thread(server.call, "DELETE", f"/projects/{ids['pod-2']}")
            again = await bot.mention(ELSEWHERE[0], "configure ntp on all routers")
            await bot.said(ELSEWHERE[0], again, "no lab's")  # after the lookup it waited for
            assert "pods of ccna: gone pod-2" in caplog.text
            assert "pod-2" not in bot.router.runtimes  # nothing open there: let go
            refused = await bot.mention(
                CHANNELS["pod-2"], "configure ntp on all routers", user=STUDENTS["pod-2"]
            )
            gone = await bot.said(CHANNELS["pod-2"], refused, "pod-2 is gone")
            assert "\n" not in gone.text
            assert "pods of ccna: added pod-3" in caplog.text
