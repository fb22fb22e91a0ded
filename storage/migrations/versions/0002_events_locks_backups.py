"""Change outcomes (with token usage), device locks and configuration backups.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "change_events",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("seq", sa.Integer, nullable=False, unique=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False, index=True),
        sa.Column("prev_hash", sa.String(64), nullable=False),
        sa.Column("row_hash", sa.String(64), nullable=False),
        sa.Column("change_id", sa.Text, nullable=False, index=True),
        sa.Column("status", sa.Text, nullable=False),
        sa.Column("detail", sa.Text, nullable=False),
        sa.Column("tokens", sa.Text),
    )
    op.create_table(
        "device_locks",
        sa.Column("device", sa.Text, primary_key=True),
        sa.Column("change_id", sa.Text, nullable=False),
        sa.Column("acquired_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "config_backups",
        sa.Column("change_id", sa.Text, primary_key=True),
        sa.Column("device", sa.Text, primary_key=True),
        sa.Column("stage", sa.Text, primary_key=True),
        sa.Column("config", sa.Text, nullable=False),
        sa.Column("captured_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    for table in ("config_backups", "device_locks", "change_events"):
        op.drop_table(table)
