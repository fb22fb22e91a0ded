"""Each change keeps the lab it was made on: a `lab` column on `changes` (what the inventory or
lab source is, as `labbot` names it at start), so a decision or a rollback on a change of another
lab is refused naming both.

Rows recorded before keep NULL and are hashed without it (storage.schema.LATER): their chain
holds, and a change of unknown lab is judged as before.

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("changes") as batch:
        batch.add_column(sa.Column("lab", sa.Text, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("changes") as batch:
        batch.drop_column("lab")
