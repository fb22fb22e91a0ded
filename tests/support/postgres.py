"""A fresh PostgreSQL database per test or benchmark run, on the server the tests use."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import subprocess
import uuid
from pathlib import Path

import sqlalchemy as sa

from storage.db import make_engine, parse_url
from tests.fakes.synapse import free_port
from tests.support.clock import machine_clock_env

# Processes on one shared database key the audit chain alike (labbot requires the setting there).
SHARED_AUDIT_KEY = "postgres-test-audit-key"
# ... and seal device text with one key (`labbot db new-key`)
SHARED_STORAGE_KEY = "L3psE7_i8LPw-a0nMhM26mFDVCzbna8gNGGDSVWlths="
POSTGRES_SCRIPT = Path(__file__).resolve().parents[2] / ".ci" / "postgres.sh"


class fresh_postgres_database:
    """`async with fresh_postgres_database(url) as db_url`: CREATE DATABASE ... DROP DATABASE."""

    def __init__(self, server_url: str) -> None:
        self.server = parse_url(server_url)
        self.name = "labbot_" + uuid.uuid4().hex[:12]
        self.admin = make_engine(server_url).execution_options(isolation_level="AUTOCOMMIT")

    async def __aenter__(self) -> str:
        async with self.admin.connect() as conn:
            await conn.execute(sa.text(f'CREATE DATABASE "{self.name}"'))
        return self.server.set(database=self.name).render_as_string(hide_password=False)

    async def __aexit__(self, *exc: object) -> None:
        async with self.admin.connect() as conn:
            await conn.execute(sa.text(f'DROP DATABASE "{self.name}" WITH (FORCE)'))
        await self.admin.dispose()


STARTS = 3  # an own cluster's tries at a free port


class own_postgres_cluster:
    """`async with own_postgres_cluster() as cluster`: a PostgreSQL server of the caller's own
    (.ci/postgres.sh on a free port, its data in a fresh directory under /tmp, which the server's
    user can reach), to stop and start (`stop()`, `resume()`: data kept) without touching the
    shared one; removed on exit."""

    def __init__(self) -> None:
        self.directory = Path("/tmp") / f"labbot-own-pg-{uuid.uuid4().hex[:12]}"
        self.env = {
            **machine_clock_env(),
            "PGPORT": str(free_port()),
            "PGDATA_DIR": str(self.directory),
        }
        self.url = ""

    async def _script(self, command: str) -> str:
        done = await asyncio.to_thread(
            subprocess.run,
            [str(POSTGRES_SCRIPT), command],
            env=self.env,
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout.strip()

    async def stop(self) -> None:
        await self._script("stop")

    async def resume(self) -> None:
        await self._script("resume")

    async def __aenter__(self) -> own_postgres_cluster:
        """Started on a free port; a port taken by another test's server between being found free
        and bound (workers start servers at once) is tried again on another, up to three."""
        tries = 1
        while True:
            try:
                self.url = await self._script("start")
                return self
            except subprocess.CalledProcessError as exc:
                shutil.rmtree(self.directory, ignore_errors=True)
                if tries == STARTS:
                    raise RuntimeError(f"own PostgreSQL did not start: {exc.stderr}") from exc
            tries += 1
            self.env["PGPORT"] = str(free_port())

    async def __aexit__(self, *exc: object) -> None:
        with contextlib.suppress(subprocess.CalledProcessError):  # stopped by the test
            await self.stop()
        shutil.rmtree(self.directory, ignore_errors=True)
