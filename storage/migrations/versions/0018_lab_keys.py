"""Many labs on one database: a device is named within its lab (R1 of pod-3 is not R1 of pod-4).

- `device_locks` is keyed by (lab, device): two labs' R1 are locked apart. Locks held at the
  upgrade are kept, as the lab "" (the one lab of the settings, as before).
- `pushes` and `reads` keep the lab of the device they touched (`lab`, LATER: rows written before
  are hashed without it and keep their hash; NULL: before 0018).

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None

COLUMNS = "device, change_id, acquired_at, expires_at"


def _locks(name: str, *key: str) -> None:
    op.create_table(
        name,
        *(sa.Column(k, sa.Text, primary_key=True) for k in key),
        sa.Column("change_id", sa.Text, nullable=False),
        sa.Column("acquired_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    )


def upgrade() -> None:
    _locks("device_locks_by_lab", "lab", "device")
    op.execute(
        f"INSERT INTO device_locks_by_lab (lab, {COLUMNS}) SELECT '', {COLUMNS} FROM device_locks"
    )
    op.drop_table("device_locks")
    op.rename_table("device_locks_by_lab", "device_locks")
    for table in ("pushes", "reads"):
        with op.batch_alter_table(table) as batch:
            batch.add_column(sa.Column("lab", sa.Text, nullable=True))


def downgrade() -> None:
    for table in ("reads", "pushes"):
        with op.batch_alter_table(table) as batch:
            batch.drop_column("lab")
    _locks("device_locks_one_lab", "device")
    op.execute(
        f"INSERT INTO device_locks_one_lab ({COLUMNS}) SELECT {COLUMNS} FROM device_locks "
        "WHERE lab = ''"
    )
    op.drop_table("device_locks")
    op.rename_table("device_locks_one_lab", "device_locks")
