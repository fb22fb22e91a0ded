"""The tables as the code uses them (the head of storage/migrations, which creates them).

Audit tables are append-only and chained: `seq` orders every audit row across all tables,
`prev_hash` is the `row_hash` of the row before it, `row_hash` covers the row's content. A column
added to an audit table later is marked LATER: a row that leaves it empty (NULL, as every row
written before it) is hashed without it, so older rows keep their hash. A column that holds what a
person, an agent or a device wrote is marked SEALED: it is kept encrypted in the row's `sealed`
column (storage.audit_seal), and the hash covers its text.
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

__all__ = ["change_events"]

metadata = sa.MetaData()
JSON_DOC = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
# a sealed JSON column: None is SQL NULL (its value is in the row's `sealed`), never JSON null
SEALED_JSON = sa.JSON(none_as_null=True).with_variant(
    postgresql.JSONB(none_as_null=True), "postgresql"
)

# --- checkpointer (the shape of langgraph-checkpoint-postgres, plus run_id for delete_for_runs) --

checkpoints = sa.Table(
    "checkpoints",
    metadata,
    sa.Column("thread_id", sa.Text, primary_key=True),
    sa.Column("checkpoint_ns", sa.Text, primary_key=True),
    sa.Column("checkpoint_id", sa.Text, primary_key=True),
    sa.Column("parent_checkpoint_id", sa.Text),
    sa.Column("run_id", sa.Text),
    sa.Column("type", sa.Text, nullable=False),
    sa.Column("checkpoint", sa.LargeBinary, nullable=False),
    # {channel: version} of the values kept in checkpoint_blobs, so SQL can join them
    sa.Column("blob_versions", JSON_DOC, nullable=False),
    sa.Column("metadata", JSON_DOC, nullable=False),
)

checkpoint_blobs = sa.Table(
    "checkpoint_blobs",
    metadata,
    sa.Column("thread_id", sa.Text, primary_key=True),
    sa.Column("checkpoint_ns", sa.Text, primary_key=True),
    sa.Column("channel", sa.Text, primary_key=True),
    sa.Column("version", sa.Text, primary_key=True),
    sa.Column("type", sa.Text, nullable=False),
    sa.Column("blob", sa.LargeBinary),
)

checkpoint_writes = sa.Table(
    "checkpoint_writes",
    metadata,
    sa.Column("thread_id", sa.Text, primary_key=True),
    sa.Column("checkpoint_ns", sa.Text, primary_key=True),
    sa.Column("checkpoint_id", sa.Text, primary_key=True),
    sa.Column("task_id", sa.Text, primary_key=True),
    sa.Column("idx", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("task_path", sa.Text, nullable=False),
    sa.Column("channel", sa.Text, nullable=False),
    sa.Column("type", sa.Text, nullable=False),
    sa.Column("blob", sa.LargeBinary, nullable=False),
)

# --- audit (append-only, hash-chained) ----------------------------------------------------------


def _audit_table(name: str, *columns: sa.Column[object]) -> sa.Table:
    return sa.Table(
        name,
        metadata,
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("seq", sa.Integer, nullable=False, unique=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("prev_hash", sa.String(64), nullable=False),
        sa.Column("row_hash", sa.String(64), nullable=False),
        # "hmac-sha256" (keyed with LABBOT_AUDIT_KEY) or "sha256" (rows from before the key)
        sa.Column("hash_scheme", sa.String(16), nullable=False, server_default="sha256"),
        *columns,
    )


def _text(name: str, *, nullable: bool = False) -> sa.Column[object]:
    return sa.Column(name, sa.Text, nullable=nullable)


LATER = "added_later"  # Column.info key: added to an audit table after its rows were chained
SEALED = "sealed_text"  # Column.info key: free text, kept in the row's SEAL_COLUMN (encrypted)
SEAL_COLUMN = "sealed"


def _later(name: str, *, sealed: bool = False) -> sa.Column[object]:
    return sa.Column(name, sa.Text, nullable=True, info={LATER: True, SEALED: sealed})


def _sealed(name: str) -> sa.Column[object]:
    """Free text: NULL here, its value in the row's SEAL_COLUMN (here only in rows written
    before sealing, until `labbot db reseal`)."""
    return sa.Column(name, sa.Text, nullable=True, info={SEALED: True})


def _seal() -> sa.Column[object]:
    return sa.Column(SEAL_COLUMN, sa.LargeBinary, nullable=True)


changes = _audit_table(
    "changes",
    _text("change_id"),
    _text("kind"),
    _text("rollback_of", nullable=True),
    _text("thread_key"),
    _text("platform"),
    _text("channel"),
    _text("requester_id"),
    _text("requester_name"),
    _sealed("text"),
    _seal(),
    _later("lab"),  # the lab it was made on (its inventory or lab source); NULL: before 0017
)
decisions = _audit_table(
    "decisions",
    _text("change_id"),
    _text("gate"),
    _text("interrupt_id"),
    _text("choice"),
    _text("actor_id"),
    _text("actor_name"),
    _text("platform"),
    _text("channel"),
    _text("content_sha256"),
    _sealed("feedback"),
    _seal(),
)
gate_resolutions = _audit_table(
    "gate_resolutions",
    _text("interrupt_id"),
    _text("change_id"),
    _text("gate"),
    _text("choice"),
    _text("actor_id"),
    _text("actor_name"),
    _text("content_sha256"),
    _sealed("feedback"),
    _seal(),
)
refusals = _audit_table(
    "refusals",
    _text("change_id", nullable=True),
    _text("interrupt_id", nullable=True),
    _text("gate", nullable=True),
    _text("actor_id"),
    _text("actor_name"),
    _text("platform"),
    _text("channel"),
    _sealed("reason"),
    _seal(),
)
pushes = _audit_table(
    "pushes",
    _text("change_id"),
    _text("device"),
    _text("lines_sha256"),
    _text("status"),  # the push's own result (its lines applied and verified, or not)
    _sealed("detail"),
    _later("post_check"),  # the post-checks' result on the device, apart; NULL: none ran
    _later("post_check_detail", sealed=True),
    _later("before_backup"),  # the backups stored around the push (workflow.results.push_records)
    _later("after_backup"),
    _seal(),
    _later("lab"),  # the lab of the device (0018); NULL: before labs were kept with pushes
)
change_events = _audit_table(
    "change_events",
    _text("change_id"),
    _text("status"),
    _sealed("detail"),
    _text("tokens", nullable=True),  # canonical JSON text, so the hash covers exactly what is kept
    _seal(),
)
template_uses = _audit_table(
    "template_uses",
    _text("change_id"),
    _text("parts"),  # canonical JSON [{name, version, sha256, source, derive}], in order
    _text("status"),  # how the change ended
)
reads = _audit_table(
    "reads",
    _text("change_id", nullable=True),  # always NULL: a read belongs to no change
    _text("actor_id"),
    _text("actor_name"),
    _text("platform"),
    _text("channel"),
    _text("device"),
    _sealed("command"),  # exactly what was sent to the device
    _seal(),
    _later("lab"),  # the lab of the device (0018); NULL: before labs were kept with reads
)
sa.Index("ix_reads_actor_at", reads.c.actor_id, reads.c.at)  # the per-user rate limit counts
agent_calls = _audit_table(
    "agent_calls",
    _text("change_id", nullable=True),  # the change the call asked or asked about
    _text("actor_id"),  # agent:NAME
    _text("actor_name"),  # NAME (agent of PRINCIPAL)
    _text("principal"),  # the person it acts for
    _text("platform"),  # mcp
    _text("channel"),  # the transport: stdio or http
    _text("tool"),
    _sealed("arguments"),  # canonical JSON of what the agent sent
    _sealed("outcome"),  # answered, or the reason it was refused
    _seal(),
    _later("lab"),  # the lab the call worked in (0019); NULL: none chosen, or before 0019
)
AUDIT_TABLES = (
    changes,
    decisions,
    gate_resolutions,
    refusals,
    pushes,
    change_events,
    template_uses,
    reads,
    agent_calls,
)
CHAIN_COLUMNS = frozenset({"id", "seq", "at", "prev_hash", "row_hash", "hash_scheme"})

# --- device locks, the read budget and configuration backups (working state, not audit) --------

device_locks = sa.Table(  # a device is named within its lab ("": the settings' one lab)
    "device_locks",
    metadata,
    sa.Column("lab", sa.Text, primary_key=True),
    sa.Column("device", sa.Text, primary_key=True),
    sa.Column("change_id", sa.Text, nullable=False),
    sa.Column("acquired_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
)

read_budget = sa.Table(  # read output charged to a channel (storage.read_budget_store)
    "read_budget",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("platform", sa.Text, nullable=False),
    sa.Column("channel", sa.Text, nullable=False),
    sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("chars", sa.Integer, nullable=False),
)
sa.Index(
    "ix_read_budget_channel_at", read_budget.c.platform, read_budget.c.channel, read_budget.c.at
)
sa.Index("ix_read_budget_at", read_budget.c.at)

config_backups = sa.Table(
    "config_backups",
    metadata,
    sa.Column("change_id", sa.Text, primary_key=True),
    sa.Column("device", sa.Text, primary_key=True),
    sa.Column("stage", sa.Text, primary_key=True),
    sa.Column("config", sa.Text),  # rows from before 0009 only: the text in clear
    sa.Column("sealed", sa.LargeBinary),  # the text, encrypted (storage.encryption)
    sa.Column("captured_at", sa.DateTime(timezone=True), nullable=False),
)

# --- the team's template library (versions are immutable: rows are only inserted) ---------------

saved_templates = sa.Table(
    "saved_templates",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("name", sa.Text, nullable=False),
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("sha256", sa.String(64), nullable=False, unique=True),
    sa.Column("description", sa.Text, nullable=False),
    sa.Column("families", sa.Text, nullable=False),  # "cisco_ios,arista_eos", for listings
    # what a person typed, secrets and their defaults included: sealed as audit text is (NULL
    # here, the values in `sealed`; in clear only in rows saved before 0016, until reseal)
    sa.Column("templates", SEALED_JSON, nullable=True, info={SEALED: True}),
    sa.Column("params_schema", SEALED_JSON, nullable=True, info={SEALED: True}),
    sa.Column("example_params", SEALED_JSON, nullable=True, info={SEALED: True}),
    sa.Column("derive", sa.Text, nullable=False),
    sa.Column("phrases", JSON_DOC, nullable=False),
    sa.Column("saved_by_id", sa.Text, nullable=False),
    sa.Column("saved_by_name", sa.Text, nullable=False),
    sa.Column("saved_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("source_change_id", sa.Text),
    sa.Column("approved_sha256", sa.Text),  # the template gate hash approved, when from a change
    sa.Column("origin_tokens", sa.Integer, nullable=False),
    sa.Column("post_checks", JSON_DOC),  # workflow.postcheck_spec.PostChecks, when declared
    sa.Column("sections", JSON_DOC),  # what it may touch; NULL: saved before sections were declared
    sa.Column("allow", JSON_DOC),  # deny-list rules it may break; NULL: none
    _seal(),
    sa.UniqueConstraint("name", "version", name="uq_saved_templates_name_version"),
)

template_pins = sa.Table(
    "template_pins",
    metadata,
    sa.Column("scope", sa.Text, primary_key=True),  # "slack:C123", "matrix:!room:hs"
    sa.Column("name", sa.Text, primary_key=True),
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("pinned_by", sa.Text, nullable=False),
    sa.Column("pinned_at", sa.DateTime(timezone=True), nullable=False),
)

# --- chat deliveries seen (first wins across replicas; pruned after a day) -----------------------

deliveries = sa.Table(
    "deliveries",
    metadata,
    sa.Column("team", sa.Text, primary_key=True),  # Slack team id ("" when the payload has none)
    sa.Column("key", sa.Text, primary_key=True),  # "event:Ev…", "action:U…:ts", …
    sa.Column("received_at", sa.DateTime(timezone=True), nullable=False, index=True),
)

# --- which database this is (one row, made by its first migration: the audit head names it) -----

database_identity = sa.Table(
    "database_identity",
    metadata,
    sa.Column("id", sa.Text, primary_key=True),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
)
