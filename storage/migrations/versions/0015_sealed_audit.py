"""Audit rows keep their free text sealed: a `sealed` column on every audit table that has free
text (what a person, an agent or a device wrote), those text columns now nullable.

A row written from here on holds NULL in them and their values, encrypted, in `sealed`
(storage.audit_seal); its hash still covers the plaintext. Rows written before keep their text
in clear (read and verified as they are) until `labbot db reseal` seals them; their hashes do
not change.

Downgrade: a release before this one cannot open a sealed row, and the audit is append-only
(deleting a row breaks the chain), so it is refused while any row is sealed: restore the
backup taken before the upgrade instead.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None

# table -> its free-text columns (storage.schema marks them SEALED), and which were NOT NULL
SEALED = {
    "changes": ("text",),
    "decisions": ("feedback",),
    "gate_resolutions": ("feedback",),
    "refusals": ("reason",),
    "pushes": ("detail", "post_check_detail"),
    "change_events": ("detail",),
    "reads": ("command",),
    "agent_calls": ("arguments", "outcome"),
}
WERE_REQUIRED = {
    ("changes", "text"),
    ("refusals", "reason"),
    ("pushes", "detail"),
    ("change_events", "detail"),
    ("reads", "command"),
    ("agent_calls", "arguments"),
    ("agent_calls", "outcome"),
}
DOWNGRADE_REFUSED = (
    "{rows} audit row(s) are sealed: a release before 0015 cannot read them, and deleting "
    "them would break the audit chain; restore the backup taken before the upgrade instead"
)


def upgrade() -> None:
    for table, columns in SEALED.items():
        with op.batch_alter_table(table) as batch:
            batch.add_column(sa.Column("sealed", sa.LargeBinary, nullable=True))
            for column in columns:
                if (table, column) in WERE_REQUIRED:
                    batch.alter_column(column, existing_type=sa.Text, nullable=True)


def downgrade() -> None:
    counted = " UNION ALL ".join(
        f"SELECT count(*) AS n FROM {table} WHERE sealed IS NOT NULL" for table in SEALED
    )
    rows = op.get_bind().execute(sa.text(f"SELECT sum(n) FROM ({counted}) AS sealed_rows"))
    sealed = int(rows.scalar() or 0)
    if sealed:
        raise RuntimeError(DOWNGRADE_REFUSED.format(rows=sealed))
    for table, columns in SEALED.items():
        with op.batch_alter_table(table) as batch:
            for column in columns:
                if (table, column) in WERE_REQUIRED:
                    batch.alter_column(column, existing_type=sa.Text, nullable=False)
            batch.drop_column("sealed")
