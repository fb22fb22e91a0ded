"""Release 0.1.0's database as the upgrade tests read it: the dump and its sidecar in fixtures/
(written by that release's own code: tests/deploy/release_fixture.py), restored and compared."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

from alembic.script import ScriptDirectory
from sqlalchemy.engine import make_url

from storage.db import alembic_config
from tests.deploy.release_fixture import pg_tool

FIXTURES = Path(__file__).parent / "fixtures"
DUMP, ABOUT = FIXTURES / "release-0.1.0.sql", FIXTURES / "release-0.1.0.json"
REVISION_ROW = re.compile(r"^COPY public\.alembic_version .*\n(\w+)\n", re.MULTILINE)


def release() -> dict[str, Any]:
    return dict(json.loads(ABOUT.read_text(encoding="utf-8")))


def dumped_revision() -> str:
    """The alembic revision the dump restores (the release's schema head)."""
    found = REVISION_ROW.search(DUMP.read_text(encoding="utf-8"))
    assert found, f"{DUMP} has no alembic_version row"
    return found.group(1)


def head_revision() -> str:
    """Today's schema head (what the migration job must reach)."""
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None
    return head


def as_released(rows: list[dict[str, Any]], released: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows of today's `labbot audit --format json` that the release wrote, with the fields
    the release showed (nothing lost or changed: equal to the release's own rows)."""
    by_seq = {row["seq"]: in_release_words(row) for row in rows}
    return [{key: by_seq.get(old["seq"], {}).get(key) for key in old} for old in released]


def in_release_words(row: dict[str, Any]) -> dict[str, Any]:
    """Today's row with its summary worded as 0.1.0 worded it, rebuilt from today's fields (so a
    field lost in the upgrade still shows). 0.1.0 named a decision by its recorded choice
    ('approve at the params gate', today the button's 'execute') and showed an event's LLM
    tokens as their JSON (today in words, none when none was spent)."""
    summary = row.get("summary")
    if row.get("kind") == "decision":
        feedback = f" — {row['detail']}" if row.get("detail") else ""
        summary = f"{row['choice']} at the {row['gate']} gate{feedback}"
    elif row.get("kind") == "event" and row.get("tokens"):
        summary = str(summary).split(" (LLM tokens:")[0] + f" (tokens {row['tokens']})"
    return row | {"summary": summary}


def restore(url: str) -> None:
    """Load the dump into an empty database with psql (stops at the first error)."""
    parts = make_url(url)
    subprocess.run(
        [
            pg_tool("psql"), "--quiet", "--no-psqlrc", "--set=ON_ERROR_STOP=1",
            f"--host={parts.host}", f"--port={parts.port}", f"--username={parts.username}",
            f"--dbname={parts.database}", f"--file={DUMP}",
        ],
        check=True, capture_output=True,
        env=os.environ | {"PGPASSWORD": parts.password or ""},
    )  # fmt: skip
