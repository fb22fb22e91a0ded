"""One place for data: the README's demo in a fresh folder keeps its records in its own place
(./labbot-demo), which the reading commands read when LABBOT_DATA_DIR names it and name when it
does not; one's own lab run from the same folder never sees them, and a change of the demo's lab
is never decided or rolled back on another lab; reading never creates a database; a head of
another database is told as such."""

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
DEMO = {"LABBOT_DATA_DIR": "labbot-demo"}  # where the demo's records are, as its welcome says
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
    listed = run(LABBOT, "audit", "--format", "json", cwd=folder, **DEMO)
    assert listed.returncode == 0, listed.stderr
    return {e["text"]: e["change_id"] for e in json.loads(listed.stdout) if e["kind"] == "change"}


def test_reading_commands_after_the_demo_show_its_records(after_demo: Path) -> None:
    changes = _change_ids(after_demo)
    pushed = changes["configure ospf on all routers"]
    waiting = changes["configure ntp on R1 servers=10.0.0.1"]
    table = run(LABBOT, "audit", cwd=after_demo, **DEMO)
    assert table.returncode == 0, table.stderr
    assert max(len(line) for line in table.stdout.splitlines()) <= 100
    assert "requested: configure ospf on all routers" in " ".join(table.stdout.split())
    assert "push to R1: success" in " ".join(table.stdout.split())
    verify = run(LABBOT, "audit", "verify", cwd=after_demo, **DEMO)
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert "intact" in verify.stdout and "matching the anchored head" in verify.stdout
    report = run(LABBOT, "audit", "report", "-o", "report.html", cwd=after_demo, **DEMO)
    assert report.returncode == 0, report.stderr
    html = (after_demo / "report.html").read_text()
    assert pushed in html and waiting in html
    pending = run(LABBOT, "pending", "--user", "console:bob", cwd=after_demo, **DEMO)
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
    other = {"LABBOT_DATABASE_URL": f"sqlite+aiosqlite:///{after_demo / 'other.db'}", **DEMO}
    assert run(LABBOT, "db", "upgrade", cwd=after_demo, **other).returncode == 0
    verify = run(LABBOT, "audit", "verify", cwd=after_demo, **other)
    assert verify.returncode == 1
    assert "anchors database" in verify.stdout and "labbot-demo/labbot.db" in verify.stdout
    assert "run `labbot audit anchor` to anchor this one" in verify.stdout
    assert "deleted" not in verify.stdout
    anchored = run(LABBOT, "audit", "anchor", cwd=after_demo, **other)
    assert anchored.returncode == 0 and "anchored" in anchored.stdout, anchored.stdout
    assert run(LABBOT, "audit", "verify", cwd=after_demo, **other).returncode == 0
    back = run(LABBOT, "audit", "verify", cwd=after_demo, **DEMO)  # the demo's own database again
    assert back.returncode == 1 and "other.db" in back.stdout and "deleted" not in back.stdout
    assert run(LABBOT, "audit", "anchor", cwd=after_demo, **DEMO).returncode == 0
    assert run(LABBOT, "audit", "verify", cwd=after_demo, **DEMO).returncode == 0


def test_cli_polish_version_flags_and_unwritable_report(after_demo: Path) -> None:
    version = run(LABBOT, "--version", cwd=after_demo, **DEMO)
    assert version.returncode == 0 and version.stdout.startswith("labbot ")
    helped = run(LABBOT, "lab", "--help", cwd=after_demo, **DEMO)
    assert "--frr" in helped.stdout and "<bool>" not in helped.stdout
    report = run(LABBOT, "audit", "report", "-o", "/nonexistent/r.html", cwd=after_demo, **DEMO)
    assert report.returncode == 2 and report.stderr.count("\n") == 1, report.stderr
    assert "--output: cannot write /nonexistent/r.html: no such folder" in report.stderr
    wide = run(LABBOT, "audit", "--wide", cwd=after_demo, COLUMNS="400", **DEMO)
    assert (
        "actor_id" in wide.stdout
        and "actor_id" not in run(LABBOT, "audit", cwd=after_demo, **DEMO).stdout
    )


OWN_LAB = """\
R1:
  hostname: 127.0.0.1
  port: 1
  platform: cisco_ios
"""


def test_ones_own_lab_beside_the_demo_never_acts_on_the_demos_changes(after_demo: Path) -> None:
    """The newcomer's path: the demo, then `labbot console` on one's own lab in the same
    folder. Its records are apart; pointed at the demo's records on purpose, a rollback or an
    approval of a demo change is refused naming both labs, and nothing is recorded for it."""
    changes = _change_ids(after_demo)
    pushed = changes["configure ospf on all routers"]
    waiting = changes["configure ntp on R1 servers=10.0.0.1"]
    (after_demo / "hosts.yaml").write_text(OWN_LAB)
    own = {"LABBOT_INVENTORY": "hosts.yaml", "LABBOT_RENDER_WORKERS": "0"}
    (after_demo / "own.txt").write_text(f"rollback {pushed}\n")
    apart = run(LABBOT, "console", "--script", "own.txt", cwd=after_demo, **own)
    assert apart.returncode == 0, apart.stderr
    assert f"No change {pushed} is on record." in apart.stdout, apart.stdout
    plain = run(LABBOT, "audit", cwd=after_demo)  # one's own place: the demo's is named
    assert "no audit records in" in plain.stdout and "labbot-data" in plain.stdout
    assert "the demo's records are in labbot-demo" in plain.stdout, plain.stdout
    (after_demo / "cross.txt").write_text(f"rollback {pushed}\napprove {waiting}\n")
    crossed = run(LABBOT, "console", "--script", "cross.txt", cwd=after_demo, **own, **DEMO)
    said = " ".join(crossed.stdout.replace("│", " ").split())
    lab = f"this bot serves inventory {after_demo / 'hosts.yaml'}"
    assert f"{pushed} was made on the demo's simulated lab, and {lab}" in said, said
    assert f"{waiting} was made on the demo's simulated lab, and {lab}" in said, said
    kinds = [e["kind"] for e in _entries(after_demo) if e["change_id"] == waiting]
    assert "decision" not in kinds and kinds.count("refusal") == 1, kinds
    assert [e["lab"] for e in _entries(after_demo) if e["kind"] == "change"] == [
        "the demo's simulated lab"
    ] * 2  # no rollback was recorded


def _entries(folder: Path) -> list[dict[str, str]]:
    listed = run(LABBOT, "audit", "--format", "json", cwd=folder, **DEMO)
    assert listed.returncode == 0, listed.stderr
    return list(json.loads(listed.stdout))
