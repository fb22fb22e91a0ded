"""Write the upgrade fixture: the PostgreSQL database a previous RELEASE leaves, written by that
release's own code, for today's migration job to upgrade (tests/deploy/test_container_upgrade.py,
tests/deploy/test_release_upgrade.py).

Release 0.1.0 is commit 276b629 (schema 0003: migrations 0001-0003). The release is checked out
in its own worktree with its own virtualenv; there its migration job, `labbot serve --http`,
Slack stand-in, library planner and simulated lab (tests/deploy/release_writer.py) make:
change 1 pushed to R1 (bob approved the template, carol executed) and change 2 waiting at its
parameter gate for R2 (bob approved the template). Written next to this file:

- fixtures/release-VERSION.sql   pg_dump of that database (plain SQL, no owners or grants);
- fixtures/release-VERSION.json  what is in it: the release and its commit, the alembic
  revision, the change ids, the interrupt ids and content hashes of every decided and of the
  pending gate, the audit rows as the release's `labbot audit --format json` showed them, its
  `audit verify`, the pending gate's Slack message and carol's Execute click on it.

    python -m tests.deploy.release_fixture [--commit 276b629] [--version 0.1.0]
        (needs LABBOT_TEST_POSTGRES_URL; the worktree goes to /tmp/labbot-release-VERSION)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
from pathlib import Path
from typing import Any

from sqlalchemy import text
from sqlalchemy.engine import make_url

from storage.db import make_engine
from tests.support.postgres import fresh_postgres_database

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).parent / "fixtures"
WRITER = Path(__file__).with_name("release_writer.py")
DECISIONS = (
    "SELECT change_id, gate, interrupt_id, actor_id, content_sha256 FROM decisions ORDER BY seq"
)


def release_tree(commit: str, worktree: Path) -> Path:
    """The release's worktree with its own virtualenv (made once; reused when there)."""
    if not (worktree / ".git").exists():
        git = ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(worktree), commit]
        subprocess.run(git, check=True)
    head = subprocess.run(
        ["git", "-C", str(worktree), "rev-parse", "HEAD"], capture_output=True, text=True
    )
    assert head.stdout.startswith(commit), f"{worktree} is at {head.stdout}, not {commit}"
    subprocess.run([str(worktree / "scripts" / "setup-venv.sh"), "test"], cwd=worktree, check=True)
    return worktree


async def write_release(server_url: str, commit: str, version: str, tree: Path) -> None:
    async with fresh_postgres_database(server_url) as url:
        written = await asyncio.to_thread(run_release, tree, url)
        revision, decided = await read_back(url)
        name = f"release-{version}"
        dump(url, FIXTURES / f"{name}.sql")
    about = describe(written, commit=commit, version=version, revision=revision, decided=decided)
    (FIXTURES / f"{name}.json").write_text(json.dumps(about, indent=1) + "\n", encoding="utf-8")


def run_release(tree: Path, url: str) -> dict[str, Any]:
    """tests/deploy/release_writer.py run by the release's interpreter on the release's code."""
    run = subprocess.run(
        [str(tree / ".venv" / "bin" / "python"), str(WRITER), url],
        cwd=tree,
        env={**os.environ, "PYTHONPATH": str(tree)},
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    return dict(json.loads(run.stdout))


def describe(written: dict[str, Any], **release: Any) -> dict[str, Any]:
    changes = list(dict.fromkeys(row["change_id"] for row in written["audit"]))
    interrupt, content = written["click"]["actions"][0]["value"].split("|")
    return {
        **release,
        "changes": {"pushed": changes[0], "pending": changes[1]},
        "pending_gate": {"gate": "params", "interrupt_id": interrupt, "sha256": content},
        **{key: written[key] for key in ("audit", "verify", "thread", "gate", "click")},
    }


async def read_back(url: str) -> tuple[str, list[dict[str, Any]]]:
    """The alembic revision and every decision's gate, interrupt id and hash, as stored."""
    engine = make_engine(url)
    try:
        async with engine.connect() as conn:
            revision = (await conn.execute(text("SELECT version_num FROM alembic_version"))).one()
            rows = await conn.execute(text(DECISIONS))
            return str(revision[0]), [dict(row._mapping) for row in rows]
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
    cli = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cli.add_argument("--commit", default="276b629")
    cli.add_argument("--version", default="0.1.0")
    cli.add_argument("--worktree", type=Path)
    args = cli.parse_args()
    tree = release_tree(args.commit, args.worktree or Path(f"/tmp/labbot-release-{args.version}"))
    server = os.environ["LABBOT_TEST_POSTGRES_URL"]
    asyncio.run(write_release(server, args.commit, args.version, tree))
