"""Agent calls: every MCP tool call of an AI agent, with the person it acts for (hash-chained).

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "agent_calls",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("seq", sa.Integer, nullable=False, unique=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("prev_hash", sa.String(64), nullable=False),
        sa.Column("row_hash", sa.String(64), nullable=False),
        sa.Column("hash_scheme", sa.String(16), nullable=False, server_default="sha256"),
        sa.Column("change_id", sa.Text, nullable=True),
        sa.Column("actor_id", sa.Text, nullable=False),
        sa.Column("actor_name", sa.Text, nullable=False),
        sa.Column("principal", sa.Text, nullable=False),
        sa.Column("platform", sa.Text, nullable=False),
        sa.Column("channel", sa.Text, nullable=False),
        sa.Column("tool", sa.Text, nullable=False),
        sa.Column("arguments", sa.Text, nullable=False),
        sa.Column("outcome", sa.Text, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("agent_calls")
