"""Reads: who sent which read-only command to which device, when (hash-chained like the rest).

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "reads",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("seq", sa.Integer, nullable=False, unique=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("prev_hash", sa.String(64), nullable=False),
        sa.Column("row_hash", sa.String(64), nullable=False),
        sa.Column("hash_scheme", sa.String(16), nullable=False, server_default="sha256"),
        sa.Column("change_id", sa.Text, nullable=True),
        sa.Column("actor_id", sa.Text, nullable=False),
        sa.Column("actor_name", sa.Text, nullable=False),
        sa.Column("platform", sa.Text, nullable=False),
        sa.Column("channel", sa.Text, nullable=False),
        sa.Column("device", sa.Text, nullable=False),
        sa.Column("command", sa.Text, nullable=False),
    )
    op.create_index("ix_reads_actor_at", "reads", ["actor_id", "at"])


def downgrade() -> None:
    op.drop_index("ix_reads_actor_at", table_name="reads")
    op.drop_table("reads")
