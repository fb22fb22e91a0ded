"""Slack retries a mention to the other replica (same event id, X-Slack-Retry-Num 1): the
deliveries table in the shared PostgreSQL lets exactly one replica start a change."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path

import pytest

from labsim import demo_topology
from tests.adapters.slack.payloads import mention
from tests.fakes.slack_api import SlackApiStandIn
from tests.scale.deployment import deployment

pytestmark = [pytest.mark.postgres, pytest.mark.xdist_group("deployments")]  # see conftest


async def test_a_retry_on_another_replica_starts_no_second_change(
    tmp_path: Path, database: str, slack_api: SlackApiStandIn
) -> None:
    async with deployment(tmp_path, database, slack_api, demo_topology(2, switch=False)) as lab:
        body = mention("apply ntp to R1 servers=10.9.9.9")
        thread = str(body["event"]["ts"])
        first, retry = lab.slack.senders
        statuses = await asyncio.gather(first.event(body), retry.event(body, retry_num=1))
        assert [status for status, _ in statuses] == [200, 200]
        await lab.slack.gate(thread, "Approve")
        await asyncio.sleep(1.0)  # a second change, if one were coming, would have posted by now
        async with lab.audit() as audit:
            entries = await audit.entries()

    changes = Counter(e.kind for e in entries)["change"]
    said = [m.all_text for m in lab.slack.thread(thread)]
    answers = [t for t in said if t.startswith(("Working on it", "A change is already"))]
    assert (changes, len(answers)) == (1, 1), said
    assert sum("Step 1 of 2" in t for t in said) == 1, said
