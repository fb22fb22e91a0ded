"""The per-channel read budget shared by every replica: read output charged to a channel, when.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "read_budget",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("platform", sa.Text, nullable=False),
        sa.Column("channel", sa.Text, nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("chars", sa.Integer, nullable=False),
    )
    op.create_index("ix_read_budget_channel_at", "read_budget", ["platform", "channel", "at"])
    op.create_index("ix_read_budget_at", "read_budget", ["at"])


def downgrade() -> None:
    op.drop_index("ix_read_budget_at", table_name="read_budget")
    op.drop_index("ix_read_budget_channel_at", table_name="read_budget")
    op.drop_table("read_budget")
