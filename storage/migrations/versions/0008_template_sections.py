"""Saved templates keep the configuration sections they may touch (declared, in their sha256).

Versions saved before have none (NULL): they are refused until saved again with `sections`.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

JSON_DOC = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    with op.batch_alter_table("saved_templates") as batch:
        batch.add_column(sa.Column("sections", JSON_DOC, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("saved_templates") as batch:
        batch.drop_column("sections")
