"""Config backups are sealed at rest: the encrypted text in `sealed`, `config` left NULL.

Rows written before keep their text in `config` (read as it is) until `labbot db reseal`
seals them.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("config_backups") as batch:
        batch.add_column(sa.Column("sealed", sa.LargeBinary, nullable=True))
        batch.alter_column("config", existing_type=sa.Text, nullable=True)


def downgrade() -> None:
    op.execute("DELETE FROM config_backups WHERE config IS NULL")  # sealed: unreadable before
    with op.batch_alter_table("config_backups") as batch:
        batch.drop_column("sealed")
        batch.alter_column("config", existing_type=sa.Text, nullable=False)
