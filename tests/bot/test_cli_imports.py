"""The light `labbot` commands run without loading the workflow, the LLM client or the drivers.

Each command runs as a user runs it (a subprocess); on exit it writes which heavy packages were
loaded. A startup regression shows here as a package name, without timing anything (the figures
are bench/cli_startup.py's).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from storage.db import upgrade_database

ROOT = Path(__file__).resolve().parents[2]
# LangGraph and LangChain, the LLM client, Nornir and its SSH drivers, Pillow, the Matrix SDK;
# then the settings (pydantic-settings) and the database (SQLAlchemy, Alembic)
WATCHED = (
    *("langgraph", "langchain_core", "openai", "nornir", "netmiko", "paramiko", "PIL", "nio"),
    *("pydantic_settings", "sqlalchemy", "alembic"),
)
PROBE = f"""\
import atexit, json, os, sys
atexit.register(lambda: open(os.environ["PROBE_OUT"], "w").write(json.dumps(sorted(
    {{name.split(".")[0] for name in sys.modules}} & set({WATCHED!r})))))
sys.argv[0] = "labbot"
from bot.cli.main import main
main()
"""


def loaded_by(tmp_path: Path, *args: str) -> tuple[str, list[str]]:
    """`labbot ARGS`' output and the heavy packages it loaded (it must succeed; no LLM set), on
    a database made beforehand (reading commands never make one)."""
    probe_out = tmp_path / "loaded.json"
    database = f"sqlite+aiosqlite:///{tmp_path / 'labbot.db'}"
    asyncio.run(upgrade_database(database))
    env = {
        **{name: value for name, value in os.environ.items() if name != "OPENAI_API_KEY"},
        "PYTHONPATH": str(ROOT),
        "COLUMNS": "120",
        "LABBOT_DATABASE_URL": database,
        "LABBOT_DATA_DIR": str(tmp_path / "data"),
        "PROBE_OUT": str(probe_out),
    }
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout, json.loads(probe_out.read_text())


SETTINGS = ["pydantic_settings"]
# the database is at the newest schema already: alembic is not loaded to find that out
STORAGE = ["pydantic_settings", "sqlalchemy"]


@pytest.mark.parametrize(
    ("args", "shows", "loads"),
    [
        (("--help",), "change your network lab safely from chat", []),
        (("audit", "--help"), "Who confirmed which change", []),
        (("templates", "--help"), "The template library", []),
        (("policy", "check", "console:bob", "R1"), "someone else must approve them", SETTINGS),
        (("templates",), "built-in and 0 saved template(s)", STORAGE),
        (("templates", "ospf"), "Template ospf: OSPF", STORAGE),
        (("templates", "stats"), "Template use: 0 change(s)", STORAGE),
        (("audit",), "no audit records in", STORAGE),
        (("audit", "verify"), "audit chain intact: 0 row(s) verified", STORAGE),
    ],
)
def test_light_commands_load_only_what_they_need(
    tmp_path: Path, args: tuple[str, ...], shows: str, loads: list[str]
) -> None:
    output, loaded = loaded_by(tmp_path, *args)
    assert shows in output
    assert loaded == loads


def test_pending_loads_the_workflow_and_no_llm_client_when_none_is_configured(
    tmp_path: Path,
) -> None:
    # the probe sees what it must: `pending` reads gates through the LangGraph graph
    output, loaded = loaded_by(tmp_path, "pending", "--user", "console:bob")
    assert "Waiting for you: 0 step(s)" in output
    assert {"langgraph", "langchain_core", "sqlalchemy"} <= set(loaded)
    assert "openai" not in loaded  # without OPENAI_API_KEY nothing asks an LLM
