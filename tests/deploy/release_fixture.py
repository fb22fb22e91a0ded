"""Write the upgrade fixture: a PostgreSQL database as a release leaves it, for the next release's
migration job to upgrade (tests/deploy/test_container_upgrade.py).

The release runs as deployed (`labbot serve --http`, the Slack stand-in, the simulated lab):
change 1 is approved and pushed to R1; change 2 waits at its parameter gate (Execute) for R2.
Written: fixtures/release-VERSION.sql (pg_dump, plain SQL) and fixtures/release-VERSION.json
(the release, its schema head, its audit as `labbot audit --format json` shows it, the pending
gate's message and the click that decides it).

    python -m tests.deploy.release_fixture     (needs LABBOT_TEST_POSTGRES_URL)
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import subprocess
import tempfile
from importlib.metadata import version
from pathlib import Path
from typing import Any

from sqlalchemy import text
from sqlalchemy.engine import make_url

from bot.audit_view import render_entries
from labsim import demo_topology
from storage.audit import AuditStore
from storage.db import make_engine
from tests.fakes.slack_api import SlackApiStandIn
from tests.scale.deployment import deployment
from tests.scale.harness import PEOPLE, clicks
from tests.support.postgres import fresh_postgres_database

FIXTURES = Path(__file__).parent / "fixtures"
PENDING_THREAD_TEXT = "apply ntp to R2 servers=10.66.0.2"


async def write_release(server_url: str, out: Path) -> None:
    async with (
        fresh_postgres_database(server_url) as url,
        SlackApiStandIn(users=dict(PEOPLE)) as api,
    ):
        with tempfile.TemporaryDirectory(prefix="labbot-release-") as work:
            async with deployment(Path(work), url, api, demo_topology(2), count=1) as lab:
                slack = lab.slack
                pushed = await slack.mention("apply ntp to R1 servers=10.66.0.1")
                await slack.click_all(await slack.gate(pushed, "Approve"), "Approve", ["U2"])
                await slack.click_all(await slack.gate(pushed, "Execute"), "Execute", ["U3"])
                await slack.said(pushed, "pushed")
                pending = await slack.mention(PENDING_THREAD_TEXT)
                await slack.click_all(await slack.gate(pending, "Approve"), "Approve", ["U2"])
                gate = await slack.gate(pending, "Execute")
                (execute,) = clicks(gate, "Execute", ["U3"])
        head, audit = await read_back(url)
        name = f"release-{version('labbot')}"
        dump(url, out / f"{name}.sql")
        about = {
            "release": version("labbot"),
            "schema": head,
            "audit": audit,
            "thread": pending,
            "gate": dataclasses.asdict(gate),
            "click": execute,
        }
        (out / f"{name}.json").write_text(json.dumps(about, indent=1) + "\n", encoding="utf-8")


async def read_back(url: str) -> tuple[str, list[dict[str, Any]]]:
    """The schema head and the audit (as the CLI's JSON) of the release's database."""
    engine = make_engine(url)
    try:
        async with engine.connect() as conn:
            head = str(
                (await conn.execute(text("SELECT version_num FROM alembic_version"))).scalar()
            )
        entries = await AuditStore(engine).entries()
        return head, json.loads(render_entries(entries, "json"))
    finally:
        await engine.dispose()


def dump(url: str, path: Path) -> None:
    """pg_dump as plain SQL without owners or grants, so any database user can restore it."""
    parts = make_url(url)
    subprocess.run(
        [
            pg_tool("pg_dump"),
            "--no-owner",
            "--no-privileges",
            f"--host={parts.host}",
            f"--port={parts.port}",
            f"--username={parts.username}",
            f"--file={path}",
            str(parts.database),
        ],
        check=True,
        env=os.environ | {"PGPASSWORD": parts.password or ""},
    )


def pg_tool(name: str) -> str:
    found = sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"))
    return str(found[-1]) if found else name


if __name__ == "__main__":
    FIXTURES.mkdir(exist_ok=True)
    asyncio.run(write_release(os.environ["LABBOT_TEST_POSTGRES_URL"], FIXTURES))
