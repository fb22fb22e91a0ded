"""`docker stop` (SIGTERM) of a labbot container: within its grace period, with nothing lost.
A gate pending at the stop is decided after the restart; a push running at the stop finishes,
or, when it cannot within LABBOT_SHUTDOWN_SECONDS, is recorded as interrupted per device."""

from __future__ import annotations

import asyncio
import copy
import time
from pathlib import Path

import pytest

from tests.deploy.containers import Deployed, deployed, pushes
from tests.deploy.engine import Images
from tests.fakes.slack_api import Posted
from tests.scale.harness import Json, clicks

pytestmark = [pytest.mark.docker, pytest.mark.xdist_group("deployments")]  # see conftest

GRACE = 30  # docker stop -t: what compose's stop_grace_period gives
SHUTDOWN_SECONDS = 6  # LABBOT_SHUTDOWN_SECONDS: how long running pushes may take after SIGTERM


async def click(
    lab: Deployed, message: Posted | Json, label: str, user: str, *, replica: int
) -> Json:
    """Press `label` (or send a prepared click again) through one replica; the payload sent."""
    payload = clicks(message, label, [user])[0] if isinstance(message, Posted) else message
    status, _ = await lab.slack.senders[replica - 1].interaction(payload)
    assert status == 200
    return payload


def pressed_again(payload: Json) -> Json:
    """The same button pressed again later: Slack gives each press its own action_ts (an equal
    one is a redelivery of the first press, which labbot drops)."""
    again = copy.deepcopy(payload)
    again["actions"][0]["action_ts"] = f"{time.time():.6f}"
    return again


async def push_while_stopping(lab: Deployed, preview: Posted, thread: str, replica: int) -> Json:
    """Execute; R2 stops answering when its push begins (after the reads); R1 finishes."""
    lab.r2.hang_on(b"configure terminal")
    sent = await click(lab, preview, "Execute", "U3", replica=replica)
    await lab.slack.said(thread, "1/2 device(s) finished")
    return sent


async def test_docker_stop_keeps_gates_and_finishes_or_records_pushes(
    images: Images, tmp_path: Path
) -> None:
    quiet_r2 = {"LABBOT_CONNECT_TIMEOUT": "120", "LABBOT_READ_TIMEOUT": "120"}  # waits, not fails
    settings = {"LABBOT_SHUTDOWN_SECONDS": str(SHUTDOWN_SECONDS), **quiet_r2}
    async with deployed(images, tmp_path, **settings) as lab:
        slack = lab.slack
        # A gate pending while replica 1 stops, decided on it after its restart.
        first = await slack.mention("apply ntp to R1,R2 servers=10.66.0.1", via=0)
        template = await slack.gate(first, "Approve")
        gate_stop = await lab.stop(1, GRACE)
        await lab.start(1)
        await click(lab, template, "Approve", "U2", replica=1)
        preview = await slack.gate(first, "Execute")

        # A push running when replica 1 stops: R2 answers again 2 s later, the push finishes.
        await push_while_stopping(lab, preview, first, replica=1)
        stopping = asyncio.create_task(lab.stop(1, GRACE))
        await asyncio.sleep(2)
        lab.r2.release()
        finished_stop = await stopping
        finished = await slack.said(first, "pushed")

        # A push that cannot finish within LABBOT_SHUTDOWN_SECONDS (R2 stays silent).
        second = await slack.mention("apply ntp to R1,R2 servers=10.66.0.2", via=1)
        await click(lab, await slack.gate(second, "Approve"), "Approve", "U2", replica=2)
        execute = await push_while_stopping(
            lab, await slack.gate(second, "Execute"), second, replica=2
        )
        cut_stop = await lab.stop(2, GRACE)
        told = await slack.said(second, "stopped during the push")
        lab.r2.release()
        await lab.start(1)
        await click(lab, pressed_again(execute), "Execute", "U3", replica=1)  # no push
        again = await lab.slack.api.wait_for(lambda: lab.slack.api.ephemerals[-1:])
        entries = await lab.audit()
        verified = await lab.labbot("audit", "verify")

    assert gate_stop[1] == 0 and gate_stop[0] < 10  # SIGTERM handled: no SIGKILL after the grace
    assert finished_stop[1] == 0 and finished_stop[0] < GRACE
    assert "✓ 2 ✗ 0 of 2" in finished.all_text
    assert cut_stop[1] == 0 and SHUTDOWN_SECONDS <= cut_stop[0] < GRACE
    assert "Interrupted on: R2" in told.all_text
    assert {"stale", "already"} & set(again[0]["text"].split())  # refused, and not pushed again:
    assert [(device, status) for _, device, status in pushes(entries)] == [
        ("R1", "success"),
        ("R2", "success"),
        ("R1", "success"),  # done before the stop: kept as it was
        ("R2", "interrupted"),
    ]
    events = [e["summary"] for e in entries if e["kind"] == "event"]
    assert events[-1].startswith("interrupted: labbot stopped before the push finished")
    assert "audit chain intact" in verified
