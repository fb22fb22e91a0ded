"""Replicas key the audit chain alike: on a shared database (PostgreSQL) labbot refuses to
start without LABBOT_AUDIT_KEY, in one line naming the fix; SQLite keeps its generated key."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

import pytest

from bot.records.audit_anchor import KEY_FILE, audit_key
from bot.settings import load_settings
from tests.bot.test_cli import labbot
from tests.security.tally import attempt
from tests.support.postgres import SHARED_STORAGE_KEY, fresh_postgres_database

SLACK_HTTP = {
    "SLACK_BOT_TOKEN": "xoxb-audit-key-test",
    "SLACK_SIGNING_SECRET": "audit-key-test-signing",
    "SLACK_API_URL": "http://127.0.0.1:9/api/",  # never reached: the key check comes first
    "LABBOT_AUDIT_KEY": "",  # what deploy/.env.example leaves it: not set
}
KEYS = {"LABBOT_AUDIT_KEY": "k" * 32, "LABBOT_STORAGE_KEY": SHARED_STORAGE_KEY}


def _on(url: str, tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    data = {"LABBOT_DATABASE_URL": url, "LABBOT_DATA_DIR": str(tmp_path / "data")}
    return labbot(*args, cwd=tmp_path, env={**SLACK_HTTP, **data, **env})


async def test_a_shared_database_without_an_audit_key_refuses_to_start(
    tmp_path: Path, postgres_url: str
) -> None:
    async with fresh_postgres_database(postgres_url) as url:
        # the migration job has run (a database without labbot's tables is told as such first)
        upgraded = await asyncio.to_thread(_on, url, tmp_path, "db", "upgrade")
        assert upgraded.returncode == 0, upgraded.stderr
        serve, verify, keyed = await asyncio.gather(
            asyncio.to_thread(_on, url, tmp_path, "serve", "--http", "--port", "0"),
            asyncio.to_thread(_on, url, tmp_path, "audit", "verify"),
            asyncio.to_thread(_on, url, tmp_path, "audit", "verify", **KEYS),
        )
    for run in (serve, verify):
        lines = run.stderr.strip().splitlines()
        attempt("audit key per replica", run.returncode != 0 and len(lines) == 1)
        assert run.returncode != 0 and len(lines) == 1, run.stderr
        assert "LABBOT_AUDIT_KEY is not set" in lines[0] and "openssl rand" in lines[0]
    assert not (tmp_path / "data" / KEY_FILE).exists()  # no per-replica key was generated
    assert keyed.returncode == 0 and "audit chain intact" in keyed.stdout, keyed.stderr


def test_sqlite_keeps_one_generated_key_file(tmp_path: Path) -> None:
    settings = load_settings(
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'labbot.db'}", data_dir=tmp_path
    )
    first = audit_key(settings)
    assert first is not None and len(first) == 64
    assert audit_key(settings) == first == (tmp_path / KEY_FILE).read_bytes().strip()
    assert (tmp_path / KEY_FILE).stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize("value", ["", "   "])
def test_an_empty_audit_key_setting_is_not_a_key(tmp_path: Path, value: str) -> None:
    settings = load_settings(audit_key=value, data_dir=tmp_path)
    assert settings.audit_key is None
