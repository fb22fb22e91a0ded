"""Checkpoints and the first audit tables (changes, decisions, gate resolutions, refusals, pushes).

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

JSON_DOC = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def _chain_columns() -> list[sa.Column[Any]]:
    return [
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("seq", sa.Integer, nullable=False, unique=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False, index=True),
        sa.Column("prev_hash", sa.String(64), nullable=False),
        sa.Column("row_hash", sa.String(64), nullable=False),
    ]


def upgrade() -> None:
    op.create_table(
        "checkpoints",
        sa.Column("thread_id", sa.Text, primary_key=True),
        sa.Column("checkpoint_ns", sa.Text, primary_key=True, server_default=""),
        sa.Column("checkpoint_id", sa.Text, primary_key=True),
        sa.Column("parent_checkpoint_id", sa.Text),
        sa.Column("run_id", sa.Text, index=True),
        sa.Column("type", sa.Text, nullable=False),
        sa.Column("checkpoint", sa.LargeBinary, nullable=False),
        sa.Column("blob_versions", JSON_DOC, nullable=False),
        sa.Column("metadata", JSON_DOC, nullable=False),
    )
    op.create_table(
        "checkpoint_blobs",
        sa.Column("thread_id", sa.Text, primary_key=True),
        sa.Column("checkpoint_ns", sa.Text, primary_key=True, server_default=""),
        sa.Column("channel", sa.Text, primary_key=True),
        sa.Column("version", sa.Text, primary_key=True),
        sa.Column("type", sa.Text, nullable=False),
        sa.Column("blob", sa.LargeBinary),
    )
    op.create_table(
        "checkpoint_writes",
        sa.Column("thread_id", sa.Text, primary_key=True),
        sa.Column("checkpoint_ns", sa.Text, primary_key=True, server_default=""),
        sa.Column("checkpoint_id", sa.Text, primary_key=True),
        sa.Column("task_id", sa.Text, primary_key=True),
        sa.Column("idx", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("task_path", sa.Text, nullable=False, server_default=""),
        sa.Column("channel", sa.Text, nullable=False),
        sa.Column("type", sa.Text, nullable=False),
        sa.Column("blob", sa.LargeBinary, nullable=False),
    )
    op.create_table(
        "changes",
        *_chain_columns(),
        sa.Column("change_id", sa.Text, nullable=False, unique=True),
        sa.Column("kind", sa.Text, nullable=False),
        sa.Column("rollback_of", sa.Text),
        sa.Column("thread_key", sa.Text, nullable=False, index=True),
        sa.Column("platform", sa.Text, nullable=False),
        sa.Column("channel", sa.Text, nullable=False),
        sa.Column("requester_id", sa.Text, nullable=False, index=True),
        sa.Column("requester_name", sa.Text, nullable=False),
        sa.Column("text", sa.Text, nullable=False),
    )
    op.create_table(
        "decisions",
        *_chain_columns(),
        sa.Column("change_id", sa.Text, nullable=False, index=True),
        sa.Column("gate", sa.Text, nullable=False),
        sa.Column("interrupt_id", sa.Text, nullable=False),
        sa.Column("choice", sa.Text, nullable=False),
        sa.Column("actor_id", sa.Text, nullable=False, index=True),
        sa.Column("actor_name", sa.Text, nullable=False),
        sa.Column("platform", sa.Text, nullable=False),
        sa.Column("channel", sa.Text, nullable=False),
        sa.Column("content_sha256", sa.Text, nullable=False),
        sa.Column("feedback", sa.Text),
        sa.UniqueConstraint("interrupt_id", "actor_id", name="uq_decisions_interrupt_actor"),
    )
    op.create_table(
        "gate_resolutions",
        *_chain_columns(),
        sa.Column("interrupt_id", sa.Text, nullable=False, unique=True),
        sa.Column("change_id", sa.Text, nullable=False, index=True),
        sa.Column("gate", sa.Text, nullable=False),
        sa.Column("choice", sa.Text, nullable=False),
        sa.Column("actor_id", sa.Text, nullable=False),
        sa.Column("actor_name", sa.Text, nullable=False),
        sa.Column("content_sha256", sa.Text, nullable=False),
        sa.Column("feedback", sa.Text),
    )
    op.create_table(
        "refusals",
        *_chain_columns(),
        sa.Column("change_id", sa.Text, index=True),
        sa.Column("interrupt_id", sa.Text),
        sa.Column("gate", sa.Text),
        sa.Column("actor_id", sa.Text, nullable=False, index=True),
        sa.Column("actor_name", sa.Text, nullable=False),
        sa.Column("platform", sa.Text, nullable=False),
        sa.Column("channel", sa.Text, nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
    )
    op.create_table(
        "pushes",
        *_chain_columns(),
        sa.Column("change_id", sa.Text, nullable=False, index=True),
        sa.Column("device", sa.Text, nullable=False, index=True),
        sa.Column("lines_sha256", sa.Text, nullable=False),
        sa.Column("status", sa.Text, nullable=False),
        sa.Column("detail", sa.Text, nullable=False),
    )


def downgrade() -> None:
    for table in (
        "pushes",
        "refusals",
        "gate_resolutions",
        "decisions",
        "changes",
        "checkpoint_writes",
        "checkpoint_blobs",
        "checkpoints",
    ):
        op.drop_table(table)
