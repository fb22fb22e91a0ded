"""Push rows keep the post-checks' result apart from the push's own, and the backups around it.

A device whose lines were applied stays pushed when its post-checks fail. The new columns are
NULL on older rows, which are hashed without them (storage.schema.LATER): their chain holds.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None

COLUMNS = ("post_check", "post_check_detail", "before_backup", "after_backup")


def upgrade() -> None:
    with op.batch_alter_table("pushes") as batch:
        for name in COLUMNS:
            batch.add_column(sa.Column(name, sa.Text, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("pushes") as batch:
        for name in reversed(COLUMNS):
            batch.drop_column(name)
