"""The template library: saved template versions, per-channel pins, template uses (audited).

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

JSON_DOC = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    op.create_table(
        "template_uses",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("seq", sa.Integer, nullable=False, unique=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False, index=True),
        sa.Column("prev_hash", sa.String(64), nullable=False),
        sa.Column("row_hash", sa.String(64), nullable=False),
        sa.Column("change_id", sa.Text, nullable=False, index=True),
        sa.Column("parts", sa.Text, nullable=False),
        sa.Column("status", sa.Text, nullable=False),
    )
    op.create_table(
        "saved_templates",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("sha256", sa.String(64), nullable=False, unique=True),
        sa.Column("description", sa.Text, nullable=False),
        sa.Column("families", sa.Text, nullable=False),
        sa.Column("templates", JSON_DOC, nullable=False),
        sa.Column("params_schema", JSON_DOC, nullable=False),
        sa.Column("example_params", JSON_DOC, nullable=False),
        sa.Column("derive", sa.Text, nullable=False),
        sa.Column("phrases", JSON_DOC, nullable=False),
        sa.Column("saved_by_id", sa.Text, nullable=False),
        sa.Column("saved_by_name", sa.Text, nullable=False),
        sa.Column("saved_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("source_change_id", sa.Text),
        sa.Column("approved_sha256", sa.Text),
        sa.Column("origin_tokens", sa.Integer, nullable=False),
        sa.UniqueConstraint("name", "version", name="uq_saved_templates_name_version"),
    )
    op.create_table(
        "template_pins",
        sa.Column("scope", sa.Text, primary_key=True),
        sa.Column("name", sa.Text, primary_key=True),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("pinned_by", sa.Text, nullable=False),
        sa.Column("pinned_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    for table in ("template_pins", "saved_templates", "template_uses"):
        op.drop_table(table)
