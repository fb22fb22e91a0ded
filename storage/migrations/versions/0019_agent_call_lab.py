"""An AI agent's call names the lab it worked in: a `lab` column on `agent_calls` (with many labs,
the lab the call was served in; NULL: the one lab of the settings, a call refused before any lab
was chosen, or a row written before 0019).

Rows recorded before keep NULL and are hashed without it (storage.schema.LATER): their chain
holds.

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-08
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("agent_calls") as batch:
        batch.add_column(sa.Column("lab", sa.Text, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("agent_calls") as batch:
        batch.drop_column("lab")
