"""What tests seal stored text with: the storage key shared deployments use, and the audit chain
as the bot builds it without an audit key (free text sealed, rows plain sha256)."""

from __future__ import annotations

from storage.audit_chain import AuditChain
from storage.encryption import StorageKeys
from tests.support.postgres import SHARED_STORAGE_KEY

STORAGE_KEYS = StorageKeys([SHARED_STORAGE_KEY])
SEALING = AuditChain(storage_keys=STORAGE_KEYS)
