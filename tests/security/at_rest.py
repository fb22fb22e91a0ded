"""Secrets planted on a device, and where they may hide in storage: every table and column of
the database (bytes as stored) and, for SQLite, every byte of its files."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from labsim.cli import CliSession
from labsim.device import SimDevice


def plant(device: SimDevice, lines: Iterable[str]) -> None:
    """Configure `lines` on the simulated device, as a person at its console would."""
    session = CliSession(device, privileged=True, secret="")
    for line in ["configure terminal", *lines, "end"]:
        reply = session.feed_line(line)
        assert "Invalid" not in reply, reply


async def found_in_database(engine: AsyncEngine, values: Iterable[str]) -> dict[str, set[str]]:
    """{table.column: the values found in clear in it}, over every table of the database."""
    wanted = [(value, value.encode()) for value in values]
    found: dict[str, set[str]] = {}
    async with engine.connect() as conn:
        tables = await conn.run_sync(lambda sync: sa.inspect(sync).get_table_names())
        for name in tables:
            table = sa.table(name)
            rows = await conn.execute(sa.select(sa.text("*")).select_from(table))
            for row in rows.mappings():
                for column, value in row.items():
                    raw = value if isinstance(value, bytes) else str(value).encode()
                    hits = {text for text, encoded in wanted if encoded in raw}
                    if hits:
                        found.setdefault(f"{name}.{column}", set()).update(hits)
    return found


def sqlite_files(database: Path) -> list[Path]:
    """The database file and those beside it (write-ahead log, shared memory, journal)."""
    return sorted(database.parent.glob(database.name + "*"))


def found_in_files(files: Iterable[Path], values: Iterable[str]) -> dict[str, set[str]]:
    """{file: the values found in its bytes} (a SQLite database, its WAL and shared memory)."""
    found: dict[str, set[str]] = {}
    for path in files:
        data = path.read_bytes()
        hits = {value for value in values if value.encode() in data}
        if hits:
            found[path.name] = hits
    return found
