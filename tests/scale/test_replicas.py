"""Two `labbot serve --http` replicas on one PostgreSQL, every click sent to both at once:
100 gates, each decided once and resumed once, and no device pushed twice."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path

import pytest

from labsim import demo_topology
from tests.fakes.slack_api import SlackApiStandIn
from tests.scale.deployment import Deployment, deployment
from tests.scale.harness import has_button

pytestmark = [pytest.mark.postgres, pytest.mark.xdist_group("deployments")]  # see conftest

ROUTERS = 10
THREADS = 90  # 90 template gates ...
PUSHING = 10  # ... and the parameters gates of 10 of those threads: 100 gates
AT_ONCE = 10  # threads in flight together


def ntp_server(index: int) -> str:
    return f"10.77.{index // 256}.{index % 256}"


async def one_thread(lab: Deployment, index: int) -> str:
    """Ask, then double-click the template gate (and, for a pushing thread, the push gate)."""
    router = f"R{index % ROUTERS + 1}"
    thread = await lab.slack.mention(
        f"apply ntp to {router} servers={ntp_server(index)}", via=index % 2
    )
    template = await lab.slack.gate(thread, "Approve")
    assert await lab.slack.click_all(template, "Approve", ["U2", "U3"]) == [200, 200]
    preview = await lab.slack.gate(thread, "Execute")
    if index < PUSHING:
        assert await lab.slack.click_all(preview, "Execute", ["U3", "U2"]) == [200, 200]
        await lab.slack.said(thread, "pushed")
    return thread


async def test_one_decision_and_one_resume_per_gate_with_two_replicas(
    tmp_path: Path, database: str, slack_api: SlackApiStandIn
) -> None:
    topology = demo_topology(ROUTERS, switch=False)
    async with deployment(tmp_path, database, slack_api, topology, count=2) as lab:
        limit = asyncio.Semaphore(AT_ONCE)

        async def limited(index: int) -> str:
            async with limit:
                return await one_thread(lab, index)

        threads = await asyncio.gather(*(limited(i) for i in range(THREADS)))
        await slack_api.wait_for(lambda: len(slack_api.ephemerals) >= THREADS + PUSHING)
        await asyncio.sleep(0.5)  # a second resume, if one were coming, would post by now
        async with lab.audit() as audit:
            entries = await audit.entries()
        commands = {d.name: list(d.commands_seen) for d in lab.lab.devices}

    kinds = Counter(e.kind for e in entries)
    assert (kinds["decision"], kinds["resolved"], kinds["refusal"]) == (100, 100, 100)
    resolved_per_change = Counter((e.change_id, e.gate) for e in entries if e.kind == "resolved")
    assert set(resolved_per_change.values()) == {1}
    refusals = [n["text"] for n in slack_api.ephemerals]
    assert len(refusals) == 100 and all("already approved by" in t for t in refusals)
    for index, thread in enumerate(threads):
        messages = slack_api.thread("C1", thread)
        steps = Counter(
            step for m in messages for step in ("Step 1 of 2", "Step 2 of 2") if step in m.text
        )
        assert steps == {"Step 1 of 2": 1, "Step 2 of 2": 1}, [m.text for m in messages]
        assert sum(m.text.startswith("Working on it") for m in messages) == 1
        decided = [m for m in messages if "Approved by" in m.all_text]
        assert len(decided) == (2 if index < PUSHING else 1)
        assert not any(has_button(m, "Approve") for m in messages)
        results = [m for m in messages if "pushed" in m.all_text and "Change" in m.all_text]
        assert len(results) == (1 if index < PUSHING else 0)

    pushes = Counter((e.change_id, e.device) for e in entries if e.kind == "push")
    assert len(pushes) == PUSHING and set(pushes.values()) == {1}
    for index in range(PUSHING):
        line = f"ntp server {ntp_server(index)}"
        seen = {name: lines.count(line) for name, lines in commands.items() if line in lines}
        assert seen == {f"R{index + 1}": 1}
