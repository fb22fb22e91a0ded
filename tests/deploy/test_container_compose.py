"""The image on a real Docker engine: the shipped compose file starts PostgreSQL, the migration
job and two labbot replicas; a change goes from a signed Slack request to the push through both
replicas, and the image runs as its non-root user on a read-only root filesystem."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from tests.deploy.containers import deployed, pushes
from tests.deploy.engine import Images, docker
from tests.scale.harness import clicks, metric, scrape

pytestmark = [pytest.mark.docker, pytest.mark.xdist_group("deployments")]  # see conftest


def approvals(metrics: list[str]) -> float:
    """Approvals that settled a gate, counted by every replica together."""
    return sum(
        metric(m, "labbot_decisions_total", choice="approve", outcome="resolved") for m in metrics
    )


async def metrics_once_counted(urls: list[str], seconds: float = 10.0) -> list[str]:
    """Every replica's /metrics, scraped again until both approvals are counted or `seconds`
    pass: a replica counts a click once it has handled all of it, a moment after the thread
    hears the result the test waits for."""
    deadline = time.monotonic() + seconds
    while True:
        metrics = [(await scrape(url, "/metrics"))[1] for url in urls]
        if approvals(metrics) >= 2 or time.monotonic() > deadline:
            return metrics
        await asyncio.sleep(0.1)


async def test_a_change_through_two_replicas_in_containers(images: Images, tmp_path: Path) -> None:
    async with deployed(images, tmp_path) as lab:
        slack = lab.slack
        thread = await slack.mention("apply ntp to R1 servers=10.66.0.1", via=0)
        template = await slack.gate(thread, "Approve")
        assert await slack.press(clicks(template, "Approve", ["U2"])) == [200]
        preview = await slack.gate(thread, "Execute")  # replica 1 resumed what replica 2 showed
        slack.senders.reverse()  # the Execute click goes to replica 2
        assert await slack.press(clicks(preview, "Execute", ["U3"])) == [200]
        result = await slack.said(thread, "pushed")
        health = [await scrape(url, "/healthz") for url in lab.urls]
        metrics = await metrics_once_counted(lab.urls)
        entries = await lab.audit()
        verified = await lab.labbot("audit", "verify")
        uid = await asyncio.to_thread(lab.compose.exec, "cat", "/proc/1/status")
        write = await asyncio.to_thread(
            lab.compose.exec, "sh", "-c", "touch /opt/labbot/x || echo refused", check=False
        )
        read_only = docker("inspect", "--format", "{{.HostConfig.ReadonlyRootfs}}", lab.replicas[0])

    assert "✓ 1 ✗ 0 of 1" in result.all_text
    assert health == [(200, "ok"), (200, "ok")]
    assert sum(metric(m, "labbot_pushes_total", status="success") for m in metrics) == 1
    assert approvals(metrics) == 2
    decided = [(e["kind"], e.get("actor_id")) for e in entries if e["kind"] == "decision"]
    assert decided == [("decision", "U2"), ("decision", "U3")]
    assert [(device, status) for _, device, status in pushes(entries)] == [("R1", "success")]
    assert "audit chain intact" in verified
    assert "Uid:\t10001" in uid  # labbot, PID 1, is the image's non-root user
    assert "Read-only file system" in write or "refused" in write
    assert read_only.stdout.strip() == "true"
