"""Saved templates keep what a person typed sealed: a `sealed` column on `saved_templates`, its
templates, parameter schema (defaults) and example values now nullable.

A template saved from here on holds NULL in them and their values, encrypted, in `sealed`
(storage.audit_seal, as audit text is since 0015); its sha256 still covers the plaintext. Rows
saved before keep their text in clear (read as they are) until `labbot db reseal` seals them.

Downgrade: a release before this one cannot open a sealed row, and a saved version is immutable
(changes and pins name it by name@version and sha256), so it is refused while any row is
sealed: restore the backup taken before the upgrade instead.

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None

SEALED = ("templates", "params_schema", "example_params")
JSON_DOC = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
DOWNGRADE_REFUSED = (
    "{rows} saved template(s) are sealed: a release before 0016 cannot read them, and a saved "
    "version is never deleted; restore the backup taken before the upgrade instead"
)


def upgrade() -> None:
    with op.batch_alter_table("saved_templates") as batch:
        batch.add_column(sa.Column("sealed", sa.LargeBinary, nullable=True))
        for column in SEALED:
            batch.alter_column(column, existing_type=JSON_DOC, nullable=True)


def downgrade() -> None:
    rows = op.get_bind().execute(
        sa.text("SELECT count(*) FROM saved_templates WHERE sealed IS NOT NULL")
    )
    sealed = int(rows.scalar() or 0)
    if sealed:
        raise RuntimeError(DOWNGRADE_REFUSED.format(rows=sealed))
    with op.batch_alter_table("saved_templates") as batch:
        for column in SEALED:
            batch.alter_column(column, existing_type=JSON_DOC, nullable=False)
        batch.drop_column("sealed")
