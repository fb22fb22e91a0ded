"""Alembic environment: always run in code by storage.db on a connection it passes in."""

from __future__ import annotations

from alembic import context

connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError("run migrations with `labbot db upgrade` (storage.db.upgrade_database)")
context.configure(connection=connection, render_as_batch=connection.dialect.name == "sqlite")
with context.begin_transaction():
    context.run_migrations()
