"""50 changes at once, each in its own thread on its own device, through one replica: all
complete, no thread shows another's change or devices; the replica's memory is reported."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from labsim import demo_topology
from tests.fakes.slack_api import SlackApiStandIn
from tests.scale.deployment import Deployment, deployment

pytestmark = [pytest.mark.postgres, pytest.mark.xdist_group("deployments")]  # see conftest

CHANGES = 50
MEMORY_LIMIT = 1024**3  # deploy/kubernetes/replicas/deployment.yaml: limits.memory 1Gi
CHANGE_ID = re.compile(r"chg-[0-9a-f]{8}")
DEVICE = re.compile(r"\bR\d+\b")


async def one_change(lab: Deployment, index: int) -> tuple[str, str]:
    """Ask for NTP on one router, approve the template, execute the preview."""
    router = f"R{index + 1}"
    thread = await lab.slack.mention(f"apply ntp to {router} servers=10.50.0.{index}")
    template = await lab.slack.gate(thread, "Approve", within=150)
    await lab.slack.click_all(template, "Approve", ["U2"])
    preview = await lab.slack.gate(thread, "Execute", within=150)
    await lab.slack.click_all(preview, "Execute", ["U3"])
    await lab.slack.said(thread, "pushed", within=150)
    return thread, router


async def test_fifty_changes_at_once_complete_without_crosstalk(
    tmp_path: Path,
    database: str,
    slack_api: SlackApiStandIn,
    record_property: Callable[[str, object], None],
) -> None:
    topology = demo_topology(CHANGES, switch=False)
    async with deployment(tmp_path, database, slack_api, topology, count=1) as lab:
        (replica,) = lab.replicas
        idle = replica.rss_bytes()
        done = await asyncio.gather(*(one_change(lab, i) for i in range(CHANGES)))
        loaded = replica.rss_bytes()
        configs = {d.name: d.running_config() for d in lab.lab.devices}

    print(
        f"RSS of one replica: idle {idle / 2**20:.0f} MiB, after {CHANGES} changes "
        f"{loaded / 2**20:.0f} MiB"
    )
    record_property("rss_idle_bytes", idle)
    record_property("rss_after_50_changes_bytes", loaded)
    assert loaded < MEMORY_LIMIT
    change_ids: set[str] = set()
    for index, (thread, router) in enumerate(done):
        text = "\n".join(m.all_text for m in slack_api.thread("C1", thread))
        ids = set(CHANGE_ID.findall(text))
        assert len(ids) == 1, ids  # only this thread's change
        assert set(DEVICE.findall(text)) == {router}, text
        assert f"ntp server 10.50.0.{index}" in configs[router]
        change_ids |= ids
    assert len(change_ids) == CHANGES
    for index in range(CHANGES):  # each router got its own server, and only that one
        assert configs[f"R{index + 1}"].count("ntp server 10.50.0.") == 1
