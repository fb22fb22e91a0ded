"""One place for data: the README's demo in a fresh folder, then the reading commands there with
no settings see its records; reading never creates a database; a head of another database is
told as such."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LABBOT = str(Path(sys.executable).parent / "labbot")
CHAT = """\
configure ospf on all routers
as bob
1
1
as alice
configure ntp on R1 servers=10.0.0.1
"""
SETTINGS_PREFIXES = ("LABBOT_", "SLACK_", "MATRIX_", "OPENAI_", "GNS3_")
# one worker runs the module (under xdist), so the demo runs once
pytestmark = pytest.mark.xdist_group("data_place")


def no_settings(**extra: str) -> dict[str, str]:
    """The environment of someone who has set nothing (the test services' names removed)."""
    kept = {k: v for k, v in os.environ.items() if not k.startswith(SETTINGS_PREFIXES)}
    return {**kept, "COLUMNS": "100", **extra}


def run(*args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args, cwd=cwd, capture_output=True, text=True, timeout=300, env=no_settings(**env)
    )


@pytest.fixture(scope="module")
def after_demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh folder where the README's `scripts/demo` ran: one change pushed (alice asked,
    bob approved both gates), a second one waiting at its template gate."""
    folder = tmp_path_factory.mktemp("fresh")
    (folder / "chat.txt").write_text(CHAT)
    demo = run(str(ROOT / "scripts" / "demo"), "--script", "chat.txt", cwd=folder)
    assert demo.returncode == 0, demo.stderr
    assert "pushed: ✓ 3 ✗ 0 of 3" in demo.stdout
    return folder


def _change_ids(folder: Path) -> dict[str, str]:
    """The demo's changes, request text -> change id."""
    listed = run(LABBOT, "audit", "--format", "json", cwd=folder)
    assert listed.returncode == 0, listed.stderr
    return {e["text"]: e["change_id"] for e in json.loads(listed.stdout) if e["kind"] == "change"}


def test_reading_commands_after_the_demo_show_its_records(after_demo: Path) -> None:
    changes = _change_ids(after_demo)
    pushed = changes["configure ospf on all routers"]
    waiting = changes["configure ntp on R1 servers=10.0.0.1"]
    table = run(LABBOT, "audit", cwd=after_demo)
    assert table.returncode == 0, table.stderr
    assert max(len(line) for line in table.stdout.splitlines()) <= 100
    assert "requested: configure ospf on all routers" in " ".join(table.stdout.split())
    assert "push to R1: success" in " ".join(table.stdout.split())
    verify = run(LABBOT, "audit", "verify", cwd=after_demo)
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert "intact" in verify.stdout and "matching the anchored head" in verify.stdout
    report = run(LABBOT, "audit", "report", "-o", "report.html", cwd=after_demo)
    assert report.returncode == 0, report.stderr
    html = (after_demo / "report.html").read_text()
    assert pushed in html and waiting in html
    pending = run(LABBOT, "pending", "--user", "console:bob", cwd=after_demo)
    assert "Waiting for you: 1 step(s)" in pending.stdout, pending.stdout + pending.stderr
    assert f"{waiting} — template step — requested by alice" in pending.stdout


def test_reading_elsewhere_names_the_missing_database_and_creates_none(tmp_path: Path) -> None:
    for command in (["audit"], ["audit", "verify"], ["pending", "--user", "console:bob"]):
        said = run(LABBOT, *command, cwd=tmp_path)
        assert said.returncode == 2 and "Traceback" not in said.stderr
        assert said.stderr.count("\n") == 1, said.stderr
        assert f"no database at {tmp_path / 'labbot-data' / 'labbot.db'}" in said.stderr
    assert not (tmp_path / "labbot-data").exists()


def test_a_head_of_another_database_is_told_as_such_and_anchored_on_purpose(
    after_demo: Path,
) -> None:
    other = {"LABBOT_DATABASE_URL": f"sqlite+aiosqlite:///{after_demo / 'other.db'}"}
    assert run(LABBOT, "db", "upgrade", cwd=after_demo, **other).returncode == 0
    verify = run(LABBOT, "audit", "verify", cwd=after_demo, **other)
    assert verify.returncode == 1
    assert "anchors database" in verify.stdout and "labbot-data/labbot.db" in verify.stdout
    assert "run `labbot audit anchor` to anchor this one" in verify.stdout
    assert "deleted" not in verify.stdout
    anchored = run(LABBOT, "audit", "anchor", cwd=after_demo, **other)
    assert anchored.returncode == 0 and "anchored" in anchored.stdout, anchored.stdout
    assert run(LABBOT, "audit", "verify", cwd=after_demo, **other).returncode == 0
    back = run(LABBOT, "audit", "verify", cwd=after_demo)  # the demo's own database again
    assert back.returncode == 1 and "other.db" in back.stdout and "deleted" not in back.stdout
    assert run(LABBOT, "audit", "anchor", cwd=after_demo).returncode == 0
    assert run(LABBOT, "audit", "verify", cwd=after_demo).returncode == 0


def test_cli_polish_version_flags_and_unwritable_report(after_demo: Path) -> None:
    version = run(LABBOT, "--version", cwd=after_demo)
    assert version.returncode == 0 and version.stdout.startswith("labbot ")
    helped = run(LABBOT, "lab", "--help", cwd=after_demo)
    assert "--frr" in helped.stdout and "<bool>" not in helped.stdout
    report = run(LABBOT, "audit", "report", "-o", "/nonexistent/r.html", cwd=after_demo)
    assert report.returncode == 2 and report.stderr.count("\n") == 1, report.stderr
    assert "--output: cannot write /nonexistent/r.html: no such folder" in report.stderr
    wide = run(LABBOT, "audit", "--wide", cwd=after_demo, COLUMNS="400")
    assert (
        "actor_id" in wide.stdout and "actor_id" not in run(LABBOT, "audit", cwd=after_demo).stdout
    )
