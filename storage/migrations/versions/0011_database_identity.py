"""The database's own id, made once when it is created, so an audit head says which database it
anchors (another database is told as such, not as rows deleted).

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-01
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    identity = op.create_table(
        "database_identity",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.bulk_insert(identity, [{"id": uuid.uuid4().hex, "created_at": datetime.now(UTC)}])


def downgrade() -> None:
    op.drop_table("database_identity")
