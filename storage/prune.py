"""`keep_latest` pruning for SQLAlchemySaver: one thread, one transaction.

Keeps the newest checkpoint of each namespace with its pending writes and the blobs it refers to,
and cuts its link to the deleted parent. Threads that use a DeltaChannel are refused, as the
PostgreSQL saver refuses them: their state is rebuilt from ancestors that pruning would delete.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from langgraph.checkpoint.serde.base import SerializerProtocol
from sqlalchemy.dialects.postgresql import JSONB

from storage.checkpoint_rows import LoadedHead
from storage.schema import checkpoint_blobs as BLOBS
from storage.schema import checkpoint_writes as WRITES
from storage.schema import checkpoints as CHECKPOINTS

STRATEGIES = ("keep_latest", "delete")
DELTA_MARKER = "counters_since_delta_snapshot"


def keep_latest(conn: sa.Connection, serde: SerializerProtocol, thread_id: str) -> None:
    if _uses_delta_channel(conn, thread_id):
        raise NotImplementedError(
            f"keep_latest can't prune threads that use a DeltaChannel: {thread_id}"
        )
    latest = (
        sa.select(CHECKPOINTS.c.checkpoint_ns, sa.func.max(CHECKPOINTS.c.checkpoint_id))
        .where(CHECKPOINTS.c.thread_id == thread_id)
        .group_by(CHECKPOINTS.c.checkpoint_ns)
    )
    for ns, head_id in conn.execute(latest).all():
        _keep_only(conn, serde, thread_id, ns, head_id)


def _uses_delta_channel(conn: sa.Connection, thread_id: str) -> bool:
    column = CHECKPOINTS.c["metadata"]
    if conn.dialect.name == "sqlite":
        marked = sa.func.json_type(column, "$." + DELTA_MARKER).is_not(None)
    else:
        marked = sa.type_coerce(column, JSONB).has_key(DELTA_MARKER)
    query = sa.select(sa.literal(1)).where(CHECKPOINTS.c.thread_id == thread_id, marked).limit(1)
    return conn.execute(query).first() is not None


def _keep_only(
    conn: sa.Connection, serde: SerializerProtocol, thread_id: str, ns: str, head_id: str
) -> None:
    in_ns = (CHECKPOINTS.c.thread_id == thread_id, CHECKPOINTS.c.checkpoint_ns == ns)
    others = CHECKPOINTS.c.checkpoint_id != head_id
    # Writes go by the checkpoints deleted: a running graph may save writes for a newer
    # checkpoint before the checkpoint itself, and those must survive.
    unkept = sa.select(CHECKPOINTS.c.checkpoint_id).where(*in_ns, others)
    conn.execute(
        sa.delete(WRITES).where(
            WRITES.c.thread_id == thread_id,
            WRITES.c.checkpoint_ns == ns,
            WRITES.c.checkpoint_id.in_(unkept),
        )
    )
    conn.execute(sa.delete(CHECKPOINTS).where(*in_ns, others))
    head = (
        conn.execute(
            sa.update(CHECKPOINTS)
            .where(*in_ns, CHECKPOINTS.c.checkpoint_id == head_id)
            .values(parent_checkpoint_id=None)
            .returning(CHECKPOINTS.c.type, CHECKPOINTS.c.checkpoint)
        )
    ).one()
    body: dict[str, Any] = serde.loads_typed((head.type, head.checkpoint))
    referenced = LoadedHead(thread_id, ns, head_id, None, body, {}).blob_keys()
    conn.execute(
        sa.delete(BLOBS).where(
            BLOBS.c.thread_id == thread_id,
            BLOBS.c.checkpoint_ns == ns,
            sa.tuple_(BLOBS.c.channel, BLOBS.c.version).not_in(referenced),
        )
    )
