"""Run by a RELEASE's own interpreter in that release's worktree (tests/deploy/release_fixture.py
does it): the release's migration job, its `labbot serve --http`, its Slack stand-in and its
simulated lab write a PostgreSQL database as a team using that release leaves it:

- change 1 (alice: ntp on R1): bob approves the template, carol executes; pushed to R1;
- change 2 (alice: ntp on R2): bob approves the template; it waits at its parameter gate, which
  expires in a hundred years (GATE_TTL), so the tests do not depend on the day they run.

Prints what happened as JSON (the threads, the pending gate's message, carol's Execute click on
it, what `labbot audit --format json` and `labbot audit verify` of the release say).

    RELEASE/.venv/bin/python THIS_FILE DATABASE_URL     (cwd: the release's worktree)

It uses only names release 0.1.0 and today's tree share: tests.scale.harness (serve_env,
replicas, SlackSide, clicks), tests.fakes.slack_api (PEOPLE) and labsim.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from bot.cli.demo import DEMO_CREDENTIALS
from labsim import LabThread, demo_topology
from tests.fakes.slack_api import PEOPLE, SlackApiStandIn
from tests.scale.harness import LABBOT, SlackSide, clicks, replicas, serve_env

PUSHED_TEXT = "apply ntp to R1 servers=10.66.0.1"
PENDING_TEXT = "apply ntp to R2 servers=10.66.0.2"
# Gates expire by the clock; the stored one must wait whatever day the upgrade tests run (with a
# day's expiry the fixture written on 2026-11-30 failed every run from 2026-12-01 on).
GATE_TTL = {"LABBOT_GATE_TTL_SECONDS": str(100 * 365 * 86400)}


async def write(database_url: str, work: Path) -> dict[str, Any]:
    async with SlackApiStandIn(users=dict(PEOPLE)) as api:
        with LabThread(demo_topology(2), ssh=False, **DEMO_CREDENTIALS) as lab:
            inventory = lab.write_inventory(work / "hosts.yaml", transport="telnet")
            env = serve_env(database_url, api, inventory) | GATE_TTL
            migrated = labbot(env, work, "db", "upgrade")
            async with replicas(env, work, 1) as started:
                slack = SlackSide(api)
                await slack.connect(started)
                try:
                    done = await drive(slack)
                finally:
                    await slack.close()
            return done | {
                "migrated": migrated,
                "audit": json.loads(labbot(env, work, "audit", "--format", "json")),
                "verify": labbot(env, work, "audit", "verify"),
            }


async def drive(slack: SlackSide) -> dict[str, Any]:
    pushed = await slack.mention(PUSHED_TEXT)
    await slack.click_all(await slack.gate(pushed, "Approve"), "Approve", ["U2"])
    await slack.click_all(await slack.gate(pushed, "Execute"), "Execute", ["U3"])
    await slack.said(pushed, "pushed")
    pending = await slack.mention(PENDING_TEXT)
    await slack.click_all(await slack.gate(pending, "Approve"), "Approve", ["U2"])
    gate = await slack.gate(pending, "Execute")
    (execute,) = clicks(gate, "Execute", ["U3"])
    return {
        "pushed_thread": pushed,
        "thread": pending,
        "gate": dataclasses.asdict(gate),
        "click": execute,
    }


def labbot(env: dict[str, str], cwd: Path, *args: str) -> str:
    done = subprocess.run(
        [str(LABBOT), *args], env=env, cwd=cwd, capture_output=True, text=True, check=True
    )
    return done.stdout + done.stderr


if __name__ == "__main__":
    with tempfile.TemporaryDirectory(prefix="labbot-release-") as workdir:
        print(json.dumps(asyncio.run(write(sys.argv[1], Path(workdir)))))
