"""`/healthz` and `/metrics` of a `labbot serve --http` replica, as a load balancer and
Prometheus see them: the health check follows the database, the counters follow the work."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from labsim import demo_topology
from storage.db import parse_url
from tests.fakes.slack_api import SlackApiStandIn
from tests.scale.deployment import deployment
from tests.scale.harness import TcpProxy, clicks, metric, scrape

pytestmark = [pytest.mark.postgres, pytest.mark.xdist_group("deployments")]  # see conftest


async def test_counters_follow_one_change_through_both_gates(
    tmp_path: Path, database: str, slack_api: SlackApiStandIn
) -> None:
    async with deployment(tmp_path, database, slack_api, demo_topology(2), count=1) as lab:
        (replica,) = lab.replicas
        assert await scrape(replica.base_url, "/healthz") == (200, "ok")
        _, before = await scrape(replica.base_url, "/metrics")

        thread = await lab.slack.mention("apply ntp to R1,R2 servers=10.9.9.9")
        template = await lab.slack.gate(thread, "Approve")
        await lab.slack.click_all(template, "Approve", ["U2", "U3"])  # one wins, one is refused
        preview = await lab.slack.gate(thread, "Execute")
        late = clicks(preview, "Execute", ["U3"])
        await lab.slack.click_all(preview, "Execute", ["U2"])
        await lab.slack.said(thread, "pushed")
        await lab.slack.press(late)  # after the push: the gate is long decided
        await slack_api.wait_for(lambda: len(slack_api.ephemerals) == 2)
        # a click is counted once its answer is posted: read until the late one is counted too
        for _ in range(300):
            status, after = await scrape(replica.base_url, "/metrics")
            late = metric(after, "labbot_refusals_total", gate="params")
            if (
                late
                and metric(
                    after, "labbot_decisions_total", choice="approve", outcome="already_decided"
                )
                >= 2
            ):
                break
            await asyncio.sleep(0.1)

    assert status == 200
    assert metric(before, "labbot_requests_total", platform="slack") == 0
    assert metric(after, "labbot_requests_total", platform="slack") == 1
    resolved = metric(after, "labbot_decisions_total", choice="approve", outcome="resolved")
    already = metric(after, "labbot_decisions_total", choice="approve", outcome="already_decided")
    assert (resolved, already) == (2, 2)
    # clicks are handled one at a time per thread: the losing Approve and the late Execute each
    # find their gate settled, and the refusal names that gate
    assert metric(after, "labbot_refusals_total", gate="template") == 1
    assert metric(after, "labbot_refusals_total", gate="params") == 1  # the late click
    assert metric(after, "labbot_pushes_total", status="success") == 2
    assert metric(after, "labbot_changes_finished_total", status="done") == 1
    assert metric(after, "labbot_failures_total", kind="unexpected") == 0
    assert metric(after, "labbot_decision_latency_seconds_count") == 4
    assert metric(after, "labbot_push_duration_seconds_count") == 1
    assert 0 < metric(after, "labbot_push_duration_seconds_sum") < 60
    assert metric(after, "process_resident_memory_bytes") > 50_000_000


async def test_health_check_answers_503_while_the_database_is_unreachable(
    tmp_path: Path, database: str, slack_api: SlackApiStandIn
) -> None:
    server = parse_url(database)
    proxy = await TcpProxy(server.host or "127.0.0.1", server.port or 5432).start()
    through_proxy = server.set(port=proxy.port).render_as_string(hide_password=False)
    try:
        async with deployment(tmp_path, through_proxy, slack_api, demo_topology(1), count=1) as lab:
            base = lab.replicas[0].base_url
            assert await scrape(base, "/healthz") == (200, "ok")
            await proxy.stop()
            await asyncio.sleep(2.1)  # past the cached answer
            down_status, down_reason = await scrape(base, "/healthz")
            proxy = await TcpProxy(*proxy.target, port=proxy.port).start()
            await asyncio.sleep(2.1)
            assert await scrape(base, "/healthz") == (200, "ok")
    finally:
        await proxy.stop()
    assert down_status == 503
    assert down_reason.startswith("database: cannot reach PostgreSQL at 127.0.0.1:")
