"""SIGKILL of `labbot serve` while gates are pending: a restarted process (or any other
replica) takes the clicks and resumes every change from PostgreSQL."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path

import pytest

from labsim import demo_topology
from tests.fakes.slack_api import Posted, SlackApiStandIn
from tests.scale.deployment import Deployment, deployment
from tests.scale.harness import Replica, start_replica

pytestmark = [pytest.mark.postgres, pytest.mark.xdist_group("deployments")]  # see conftest

CHANGES = 20
ROUTERS = 4


async def restart(lab: Deployment) -> Replica:
    """SIGKILL the serving process, start a new one and point Slack at it."""
    (victim,) = lab.replicas
    await victim.kill()
    assert victim.process.returncode == -9
    await lab.slack.close()
    replacement = await start_replica(lab.env, lab.workdir)
    await replacement.wait_listening()
    lab.replicas[:] = [replacement]
    await lab.slack.connect(lab.replicas)
    return replacement


async def gates(lab: Deployment, threads: list[str], label: str) -> list[Posted]:
    return list(await asyncio.gather(*(lab.slack.gate(t, label) for t in threads)))


async def test_killed_while_gates_are_pending_then_restarted_resumes_every_change(
    tmp_path: Path, database: str, slack_api: SlackApiStandIn
) -> None:
    topology = demo_topology(ROUTERS, switch=False)
    async with deployment(tmp_path, database, slack_api, topology, count=1) as lab:
        threads = [
            await lab.slack.mention(f"apply ntp to R{i % ROUTERS + 1} servers=10.66.0.{i}")
            for i in range(CHANGES)
        ]
        templates = await gates(lab, threads, "Approve")
        await restart(lab)
        await asyncio.gather(*(lab.slack.click_all(g, "Approve", ["U2"]) for g in templates))
        previews = await gates(lab, threads, "Execute")
        assert all(g.buttons == [] and "Approved by <@U2>" in g.all_text for g in templates)

        await restart(lab)  # again, now with the parameter gates pending
        pushing = previews[:ROUTERS]  # one change per router: no two wait for one device lock
        await asyncio.gather(*(lab.slack.click_all(g, "Execute", ["U3"]) for g in pushing))
        results = await asyncio.gather(*(lab.slack.said(t, "pushed") for t in threads[:ROUTERS]))
        async with lab.audit() as audit:
            entries = await audit.entries()
            verified = await audit.verify()

    assert len(previews) == CHANGES  # 20 of 20 changes resumed after the first kill
    assert all("✓" in r.all_text and "✗ 0" in r.all_text for r in results)
    resolved = Counter(e.gate for e in entries if e.kind == "resolved")
    assert resolved == {"template": CHANGES, "params": ROUTERS}
    assert sorted(e.device for e in entries if e.kind == "push") == [
        f"R{i + 1}" for i in range(ROUTERS)
    ]
    assert verified.ok
