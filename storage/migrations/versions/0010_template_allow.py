"""Saved templates keep the deny-list rules they may break (`allow:`, in their sha256).

Versions saved before allow nothing (NULL).

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

JSON_DOC = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    with op.batch_alter_table("saved_templates") as batch:
        batch.add_column(sa.Column("allow", JSON_DOC, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("saved_templates") as batch:
        batch.drop_column("allow")
