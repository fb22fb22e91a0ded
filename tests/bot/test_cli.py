"""The `labbot` command as a user runs it: a subprocess, its output and exit code."""

from __future__ import annotations

import json
import os
import pwd
import sqlite3
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEMO_SCRIPT = """\
configure ospf on all routers
as bob
1
1
audit
"""


def labbot(
    *args: str, cwd: Path, env: dict[str, str] | None = None, stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=240,
        env={**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "120", **(env or {})},
    )


def test_scripted_demo_configures_ospf_and_audit_names_the_approver(tmp_path: Path) -> None:
    script = tmp_path / "demo.txt"
    script.write_text(DEMO_SCRIPT)
    demo = labbot("demo", "--script", str(script), "--data-dir", "data", cwd=tmp_path)
    assert demo.returncode == 0, demo.stderr
    assert "pushed: ✓ 3 ✗ 0 of 3" in demo.stdout  # "all routers": R1-R3, not the switch SW1
    assert "for R1, R2, R3 (router: kind in the inventory)." in demo.stdout  # not SW1
    assert "✅ Approved by bob" in demo.stdout
    db = {"LABBOT_DATA_DIR": str(tmp_path / "data")}  # the database, key and head are there
    audit = labbot("audit", "--format", "json", "--user", "bob", cwd=tmp_path, env=db)
    assert audit.returncode == 0, audit.stderr
    resolved = [e for e in json.loads(audit.stdout) if e["kind"] == "resolved"]
    assert [(e["gate"], e["actor_name"]) for e in resolved] == [
        ("template", "bob"),
        ("params", "bob"),
    ]
    piped = labbot("audit", cwd=tmp_path, env={**db, "COLUMNS": "80"})  # `labbot audit | cat`
    assert piped.returncode == 0 and "requested: configure ospf on all routers" in piped.stdout
    assert all(len(line) <= 80 for line in piped.stdout.splitlines()), piped.stdout
    assert not [line for line in piped.stdout.splitlines() if len(line.strip()) == 1]
    pushes = labbot("audit", "--format", "csv", "--device", "R1", cwd=tmp_path, env=db)
    assert pushes.stdout.splitlines()[0].startswith("seq,at,kind")
    assert ",push," in pushes.stdout and "R1" in pushes.stdout
    verify = labbot("audit", "verify", cwd=tmp_path, env=db)
    assert verify.returncode == 0 and "intact" in verify.stdout
    with sqlite3.connect(tmp_path / "data" / "labbot.db") as conn:
        conn.execute("UPDATE pushes SET status = 'success', detail = 'forged' WHERE device = 'R2'")
    broken = labbot("audit", "verify", cwd=tmp_path, env=db)
    assert broken.returncode == 1 and "pushes" in broken.stdout


def test_a_bad_setting_is_one_line_not_a_traceback(tmp_path: Path) -> None:
    result = labbot("audit", cwd=tmp_path, env={"LABBOT_DATABASE_URL": "mysql://x/y"})
    assert result.returncode == 2
    assert "LABBOT_DATABASE_URL" in result.stderr and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) <= 2


def test_unreachable_database_is_one_clear_line(tmp_path: Path) -> None:
    url = "postgresql+psycopg://labbot@127.0.0.1:9/nowhere"
    result = labbot("db", "upgrade", cwd=tmp_path, env={"LABBOT_DATABASE_URL": url})
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "127.0.0.1" in result.stderr


def test_db_upgrade_and_serve_without_platforms_explain_themselves(tmp_path: Path) -> None:
    env = {"LABBOT_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'x.db'}"}
    upgraded = labbot("db", "upgrade", cwd=tmp_path, env=env)
    assert upgraded.returncode == 0 and "revision" in upgraded.stdout
    serve = labbot(
        "serve", cwd=tmp_path, env={**env, "SLACK_BOT_TOKEN": "", "MATRIX_HOMESERVER": ""}
    )
    assert serve.returncode == 2 and "no chat platform configured" in serve.stderr


def test_serve_with_power_level_rules_and_no_rooms_to_read_them_in_refuses_to_start(
    tmp_path: Path,
) -> None:
    env = {
        "LABBOT_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'x.db'}",
        "MATRIX_HOMESERVER": "http://127.0.0.1:9",  # never reached: the check comes first
        "MATRIX_USER_ID": "@labbot:localhost",
        "MATRIX_PASSWORD": "secret",
        "LABBOT_APPROVERS": "@alice:localhost,power>=50",
        "SLACK_BOT_TOKEN": "",
    }
    refused = labbot("serve", cwd=tmp_path, env=env)
    said = refused.stderr.strip().splitlines()
    assert refused.returncode == 2 and len(said) == 1, refused.stderr
    assert "LABBOT_MATRIX_AUTHORITY_ROOM" in said[0] and "power>=N" in said[0]


def test_pending_without_a_user_is_you_at_the_console(tmp_path: Path) -> None:
    """`labbot pending` as the README writes it: the OS user's open changes (console:USER)."""
    me = pwd.getpwuid(os.getuid()).pw_name
    script = tmp_path / "ask.txt"
    script.write_text("apply ntp to R1 servers=10.0.0.1\n")
    data = ["--data-dir", "data"]
    assert labbot("demo", "--as", me, "--script", str(script), *data, cwd=tmp_path).returncode == 0
    pending = labbot("pending", cwd=tmp_path, env={"LABBOT_DATA_DIR": str(tmp_path / "data")})
    assert pending.returncode == 0, pending.stderr
    assert "Your open changes: 1" in pending.stdout, pending.stdout


def test_help_at_the_console_names_its_own_words(tmp_path: Path) -> None:
    script = tmp_path / "help.txt"
    script.write_text("help\nquit\n")
    shown = labbot("demo", "--devices", "1", "--script", str(script), cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert "as NAME" in shown.stdout and "quit" in shown.stdout.split("At this console:")[1]


def test_a_modify_adds_to_or_removes_from_a_list_and_says_what_changed(tmp_path: Path) -> None:
    script = tmp_path / "modify.txt"
    script.write_text(
        "apply ntp to R1 servers=10.0.0.1\nas bob\n1\n"
        "modify: add server 10.0.0.2\nmodify: remove server 10.0.0.1\nquit\n"
    )
    shown = labbot("demo", "--devices", "1", "--script", str(script), cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    said = " ".join(shown.stdout.split())
    assert "Changed from the last preview: R1 servers: 10.0.0.1 → 10.0.0.1, 10.0.0.2." in said
    assert "Changed from the last preview: R1 servers: 10.0.0.1, 10.0.0.2 → 10.0.0.2." in said
    last = shown.stdout.rsplit("Step 2 of 2", 1)[1]
    assert "ntp server 10.0.0.2" in last and "ntp server 10.0.0.1 " not in last
