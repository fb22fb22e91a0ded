"""Saved templates keep their post-checks (what must hold after a push).

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

JSON_DOC = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    with op.batch_alter_table("saved_templates") as batch:
        batch.add_column(sa.Column("post_checks", JSON_DOC, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("saved_templates") as batch:
        batch.drop_column("post_checks")
