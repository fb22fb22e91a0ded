"""The audit chain checked row by row with its key, and against its anchor: what
`labbot audit verify` and the doctor both read (bot/cli/audit.py, bot/check/storage_items.py)."""

from __future__ import annotations

from bot import messages
from bot.records.audit_anchor import audit_key, head_file
from bot.records.place import database_place, open_for_reading
from bot.records.storage_key import reading_keys
from bot.settings import Settings
from storage.audit_chain import AuditChain
from storage.audit_head import Anchor, DatabaseName, database_name
from storage.audit_records import ChainReport
from storage.audit_store import AuditStore
from storage.db import make_engine

__all__ = ["anchored_elsewhere", "verified"]


async def verified(
    settings: Settings, anchor: Anchor | None
) -> tuple[ChainReport, DatabaseName, bool]:
    """The chain row by row with the HMAC key, and against `anchor` when it anchors this
    database; the last value says whether it anchors another one."""
    await open_for_reading(settings)
    chain = AuditChain(key=audit_key(settings, create=False), storage_keys=reading_keys(settings))
    engine = make_engine(settings.database_url)
    try:
        database = await database_name(engine)
        other = anchor is not None and not anchor.anchors(database)
        against = anchor.head if anchor is not None and not other else None
        store = AuditStore(engine, chain=chain)
        return await store.verify(against), database, other
    finally:
        await engine.dispose()


def anchored_elsewhere(settings: Settings, anchor: Anchor, database: DatabaseName) -> str:
    """ "FILE anchors database X (where it was), not this one (Y, where it is)"."""
    named = anchor.database or DatabaseName("?")
    return messages.HEAD_ANCHORS_OTHER.format(
        file=head_file(settings).path,
        anchored=named.id[:8],
        was=named.where,
        this=database.id[:8],
        where=database_place(settings),
    )
