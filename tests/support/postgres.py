"""A fresh PostgreSQL database per test or benchmark run, on the server the tests use."""

from __future__ import annotations

import uuid

import sqlalchemy as sa

from storage.db import make_engine, parse_url


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
