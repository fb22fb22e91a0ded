"""`labbot health`, the health check of a container that serves no HTTP (Socket Mode, Matrix:
deploy/compose.socket-mode.yml, the single-pod Kubernetes path): what /healthz checks, said
as a command's exit status, run in a fresh folder as the container runs it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SETTINGS_PREFIXES = ("LABBOT_", "SLACK_", "MATRIX_", "OPENAI_", "GNS3_")


def labbot(*args: str, cwd: Path, **settings: str) -> subprocess.CompletedProcess[str]:
    kept = {k: v for k, v in os.environ.items() if not k.startswith(SETTINGS_PREFIXES)}
    env = {**kept, "PYTHONPATH": str(ROOT), "COLUMNS": "200", **settings}
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


def test_health_is_ok_once_the_database_is_there_and_never_makes_one(tmp_path: Path) -> None:
    data = tmp_path / "data"
    before = labbot("health", cwd=tmp_path, LABBOT_DATA_DIR=str(data))
    assert before.returncode == 1  # unhealthy, as Docker reads it (it reserves 2)
    assert f"no database at {data / 'labbot.db'}" in before.stderr
    assert "LABBOT_DATA_DIR" in before.stderr
    assert not (data / "labbot.db").exists()
    assert labbot("db", "upgrade", cwd=tmp_path, LABBOT_DATA_DIR=str(data)).returncode == 0
    after = labbot("health", cwd=tmp_path, LABBOT_DATA_DIR=str(data))
    assert (after.returncode, after.stdout.strip()) == (0, "ok")


def test_health_names_an_unreachable_postgresql(tmp_path: Path) -> None:
    url = "postgresql+psycopg://labbot:secret@127.0.0.1:1/labbot"
    down = labbot("health", cwd=tmp_path, LABBOT_DATABASE_URL=url)
    assert down.returncode == 1
    assert "database:" in down.stderr and "127.0.0.1" in down.stderr
    assert "secret" not in down.stderr
