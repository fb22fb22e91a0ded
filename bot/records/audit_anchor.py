"""The audit chain's key and anchor, from settings: the HMAC key outside the database, the head
written to a file after every append and posted to the audit channel when a change ends."""

from __future__ import annotations

import asyncio
import logging
import secrets

from adapters.chat import ChatAdapter, Message, ThreadRef
from base.errors import ConfigError
from base.masking import SecretMask
from bot import messages
from bot.records.key_files import key_from_file
from bot.settings import Settings
from storage.audit_chain import AuditChain, ChainHead
from storage.audit_head import DatabaseName, HeadFile, head_text
from storage.encryption import StorageKeys
from storage.schema import change_events

__all__ = ["KEY_FILE", "audit_chain_from", "audit_key", "head_file", "secret_mask"]

log = logging.getLogger(__name__)
KEY_FILE = "audit.key"
HEAD_FILE = "audit-head.json"


def audit_key(settings: Settings, *, create: bool = True) -> bytes | None:
    """LABBOT_AUDIT_KEY; without it a key generated once into LABBOT_DATA_DIR/audit.key (mode
    0600; `create=False`: None when there is none). A shared database (PostgreSQL) is for
    replicas, which must share one key: there the setting is required."""
    if settings.audit_key is not None:
        return settings.audit_key.get_secret_value().encode()
    if not settings.database_url.startswith("sqlite"):
        raise ConfigError(messages.AUDIT_KEY_REQUIRED)
    path = settings.data_dir / KEY_FILE
    key = key_from_file(path, lambda: secrets.token_hex(32), "LABBOT_AUDIT_KEY", create=create)
    return None if key is None else key.encode()


def secret_mask(settings: Settings) -> SecretMask:
    """How every command and replica shows a secret value: keyed from the audit key, so the
    same value shows the same token in chat, in the report and on the CLI."""
    key = audit_key(settings)
    assert key is not None  # created when missing
    return SecretMask.derived_from(key)


def head_file(settings: Settings) -> HeadFile:
    return HeadFile(settings.audit_head_file or settings.data_dir / HEAD_FILE)


class AuditAnchor:
    """Hears every new chain head: the file moves forward (while it anchors this database); a
    change's end is posted."""

    def __init__(
        self,
        file: HeadFile,
        database: DatabaseName,
        adapter: ChatAdapter | None,
        channel: str | None,
    ) -> None:
        self.file, self.database, self.adapter, self.channel = file, database, adapter, channel
        self._told = False

    async def __call__(self, head: ChainHead, table: str) -> None:
        anchored = await asyncio.to_thread(self.file.write, head, self.database)
        if not anchored and not self._told:
            self._told = True
            log.warning(messages.HEAD_OF_ANOTHER_DATABASE_KEPT.format(file=self.file.path))
        if self.adapter and self.channel and table == change_events.name:
            text = messages.AUDIT_HEAD.format(rows=head.rows, head=head_text(head))
            where = ThreadRef(self.adapter.platform, self.channel, "")
            try:
                await self.adapter.post(where, Message(text=text))
            except Exception:  # the file has it; the post is the second copy
                log.exception("could not post the audit head to %s", self.channel)


def audit_chain_from(
    settings: Settings,
    database: DatabaseName,
    storage_keys: StorageKeys,
    adapter: ChatAdapter | None = None,
) -> AuditChain:
    """The chain every store appends with: keyed, its free text sealed with `storage_keys`
    (bot/records/storage_key.py), its head anchored in the file (for `database`) and, when the
    bot runs (`adapter`), in the audit channel."""
    anchor = AuditAnchor(head_file(settings), database, adapter, settings.audit_channel)
    return AuditChain(key=audit_key(settings), on_head=anchor, storage_keys=storage_keys)
