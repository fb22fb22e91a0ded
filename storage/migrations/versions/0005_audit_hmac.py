"""Audit rows say how they are hashed: "sha256" (the rows before this) or "hmac-sha256".

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

AUDIT_TABLES = (
    "changes",
    "decisions",
    "gate_resolutions",
    "refusals",
    "pushes",
    "change_events",
    "template_uses",
)


def upgrade() -> None:
    for table in AUDIT_TABLES:
        with op.batch_alter_table(table) as batch:
            batch.add_column(
                sa.Column("hash_scheme", sa.String(16), nullable=False, server_default="sha256")
            )


def downgrade() -> None:
    for table in AUDIT_TABLES:
        with op.batch_alter_table(table) as batch:
            batch.drop_column("hash_scheme")
