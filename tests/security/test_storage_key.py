"""The key sealing device text is kept outside the database: on a shared database (PostgreSQL)
labbot refuses to start without LABBOT_STORAGE_KEY, in one line naming it; a key that is not one
is one line too; SQLite keeps a generated key file; `labbot db reseal` rotates."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

from bot.records.storage_key import KEY_FILE, storage_keys
from bot.settings import load_settings
from storage.audit_chain import AuditChain
from storage.audit_store import AuditStore
from storage.db import make_engine
from storage.encryption import StorageKeys, new_key
from tests.bot.test_cli import labbot
from tests.security.tally import attempt
from tests.support.postgres import SHARED_AUDIT_KEY, fresh_postgres_database

SLACK_HTTP = {
    "SLACK_BOT_TOKEN": "xoxb-storage-key-test",
    "SLACK_SIGNING_SECRET": "storage-key-test-signing",
    "SLACK_API_URL": "http://127.0.0.1:9/api/",  # never reached: the key check comes first
    "LABBOT_AUDIT_KEY": SHARED_AUDIT_KEY,
    "LABBOT_STORAGE_KEY": "",  # what deploy/.env.example leaves it: not set
}


def _on(url: str, tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    data = {"LABBOT_DATABASE_URL": url, "LABBOT_DATA_DIR": str(tmp_path / "data")}
    return labbot(*args, cwd=tmp_path, env={**SLACK_HTTP, **data, **env})


async def test_a_shared_database_without_a_storage_key_refuses_to_start_in_one_line(
    tmp_path: Path, postgres_url: str
) -> None:
    async with fresh_postgres_database(postgres_url) as url:
        serve, reseal, wrong = await asyncio.gather(
            asyncio.to_thread(_on, url, tmp_path, "serve", "--http", "--port", "0"),
            asyncio.to_thread(_on, url, tmp_path, "db", "reseal"),
            asyncio.to_thread(
                _on, url, tmp_path, "serve", "--http", "--port", "0", LABBOT_STORAGE_KEY="short"
            ),
        )
    for run in (serve, reseal):
        lines = run.stderr.strip().splitlines()
        attempt("storage key per replica", run.returncode != 0 and len(lines) == 1)
        assert run.returncode != 0 and len(lines) == 1, run.stderr
        assert "LABBOT_STORAGE_KEY is not set" in lines[0] and "labbot db new-key" in lines[0]
    lines = wrong.stderr.strip().splitlines()
    assert wrong.returncode != 0 and len(lines) == 1, wrong.stderr
    assert "LABBOT_STORAGE_KEY: each comma-separated key must be 32" in lines[0]
    assert "short" not in wrong.stderr  # the setting's value is never echoed
    assert not (tmp_path / "data" / KEY_FILE).exists()  # no per-replica key was generated


async def test_reading_a_shared_database_s_audit_without_the_key_names_the_one_serve_runs_with(
    tmp_path: Path, postgres_url: str
) -> None:
    async with fresh_postgres_database(postgres_url) as url:
        upgraded = await asyncio.to_thread(_on, url, tmp_path, "db", "upgrade")
        assert upgraded.returncode == 0, upgraded.stderr
        listing, verify = await asyncio.gather(
            asyncio.to_thread(_on, url, tmp_path, "audit"),
            asyncio.to_thread(_on, url, tmp_path, "audit", "verify"),
        )
    for run in (listing, verify):
        lines = run.stderr.strip().splitlines()
        assert run.returncode != 0 and len(lines) == 1, run.stderr
        assert "LABBOT_STORAGE_KEY is not set" in lines[0], lines
        assert "the key(s) `labbot serve` runs with" in lines[0] and "new-key" not in lines[0]
    assert not (tmp_path / "data" / KEY_FILE).exists()


async def test_reading_the_audit_makes_no_storage_key_when_its_file_is_gone(tmp_path: Path) -> None:
    """An embedded database whose storage.key is lost: `labbot audit verify` names the sealed
    row and `labbot audit` says which key is missing, and neither makes up a key (one a later
    `labbot serve` would seal with, beside rows it cannot open)."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'data' / 'labbot.db'}"
    assert _on(url, tmp_path, "db", "upgrade").returncode == 0
    engine = make_engine(url)
    try:
        chain = AuditChain(storage_keys=StorageKeys([new_key()]))  # a key since lost
        await AuditStore(engine, chain=chain).record_change(
            "chg-1", thread_key="slack:C1:1", platform="slack", channel="C1",
            requester_id="U1", requester_name="alice", text="configure ntp on R1",
        )  # fmt: skip
    finally:
        await engine.dispose()
    verify = await asyncio.to_thread(_on, url, tmp_path, "audit", "verify")
    listing = await asyncio.to_thread(_on, url, tmp_path, "audit")
    assert verify.returncode == 1 and "its sealed text cannot be opened" in verify.stdout
    assert listing.returncode != 0 and "put LABBOT_DATA_DIR's storage.key back" in listing.stderr
    assert not (tmp_path / "data" / KEY_FILE).exists()


def test_sqlite_keeps_one_generated_key_file(tmp_path: Path) -> None:
    settings = load_settings(
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'labbot.db'}", data_dir=tmp_path
    )
    sealed = storage_keys(settings).seal(b"snmp-server community c0mm RO")
    assert (tmp_path / KEY_FILE).stat().st_mode & 0o777 == 0o600
    assert storage_keys(settings).open(sealed) == b"snmp-server community c0mm RO"


def test_reseal_rotates_to_the_first_key(tmp_path: Path) -> None:
    """Rotation as the README says: the new key first, reseal, then the old key can go."""
    old, new = new_key(), new_key()
    url = f"sqlite+aiosqlite:///{tmp_path / 'labbot.db'}"
    settings = load_settings(database_url=url, data_dir=tmp_path, storage_key=old)
    sealed = storage_keys(settings).seal(b"hostname R1")
    rotated = _on(url, tmp_path, "db", "reseal", LABBOT_STORAGE_KEY=f"{new},{old}")
    assert rotated.returncode == 0, rotated.stderr
    assert "resealed: checkpoints 0" in rotated.stdout and "config_backups 0" in rotated.stdout
    both = storage_keys(load_settings(storage_key=f" {new} , {old} "))
    assert both.open(sealed) == b"hostname R1"  # spaces around the keys are not part of them


async def _seal_a_row(url: str, key: str) -> None:
    """What a `labbot serve` with `key` leaves: an audit row sealed with it."""
    engine = make_engine(url)
    try:
        chain = AuditChain(storage_keys=StorageKeys([key]))
        await AuditStore(engine, chain=chain).record_change(
            "chg-1", thread_key="slack:C1:1", platform="slack", channel="C1",
            requester_id="U1", requester_name="alice", text="configure ntp on R1",
        )  # fmt: skip
    finally:
        await engine.dispose()


async def test_a_wrong_storage_key_is_refused_at_start_and_by_the_doctor(
    tmp_path: Path, postgres_url: str
) -> None:
    """A `serve` with a key that does not open what the database sealed last would seal new rows
    beside them, and `audit verify` with the right key would later report the chain broken: it
    refuses in one line naming the fix, `labbot check` says the same as a ✗ line, and nothing
    was sealed with the wrong key (verify with the right one passes)."""
    right, wrong = new_key(), new_key()
    sqlite = f"sqlite+aiosqlite:///{tmp_path / 'data' / 'labbot.db'}"
    assert _on(sqlite, tmp_path, "db", "upgrade").returncode == 0
    await _seal_a_row(sqlite, right)
    async with fresh_postgres_database(postgres_url) as shared:
        upgraded = await asyncio.to_thread(_on, shared, tmp_path, "db", "upgrade")
        assert upgraded.returncode == 0, upgraded.stderr
        await _seal_a_row(shared, right)
        serve = ("serve", "--http", "--port", "0")
        runs = await asyncio.gather(
            asyncio.to_thread(_on, sqlite, tmp_path, *serve, LABBOT_STORAGE_KEY=wrong),
            asyncio.to_thread(_on, shared, tmp_path, *serve, LABBOT_STORAGE_KEY=wrong),
            asyncio.to_thread(_on, sqlite, tmp_path, "check", LABBOT_STORAGE_KEY=wrong),
            asyncio.to_thread(_on, sqlite, tmp_path, "audit", "verify", LABBOT_STORAGE_KEY=right),
        )
    said = "LABBOT_STORAGE_KEY does not open what this database sealed last (changes)"
    for run in runs[:2]:
        lines = run.stderr.strip().splitlines()
        attempt("wrong storage key", run.returncode != 0 and len(lines) == 1)
        assert run.returncode != 0 and len(lines) == 1, run.stderr
        assert said in lines[0] and "labbot db reseal" in lines[0], lines
        assert wrong not in run.stderr
    check, verify = runs[2:]
    assert check.returncode == 1
    assert [line for line in check.stdout.splitlines() if line.startswith(f"✗ storage key: {said}")]
    assert verify.returncode == 0, verify.stdout + verify.stderr
