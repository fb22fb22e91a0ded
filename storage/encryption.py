"""Encryption at rest: device text in config backups and checkpoints, and the free text of
audit rows (storage.audit_seal), sealed with Fernet keys.

Fernet (AES-128-CBC with an HMAC-SHA256 tag) from the `cryptography` library. The first key
seals; every key opens (MultiFernet), so a key is rotated by putting a new one first, keeping
the old one after it until `reseal` has sealed everything again under the new one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from cryptography.fernet import Fernet, InvalidToken, MultiFernet

from base.errors import StorageError

if TYPE_CHECKING:
    from langgraph.checkpoint.serde.encrypted import EncryptedSerializer

__all__ = ["StorageKeys", "encrypted_serde", "new_key"]

CIPHER_NAME = "fernet"  # what EncryptedSerializer appends to a value's type: "msgpack+fernet"
UNREADABLE = (
    "stored data cannot be decrypted with any key of LABBOT_STORAGE_KEY "
    "(was the key that sealed it removed?)"
)


def new_key() -> str:
    """A fresh key, as LABBOT_STORAGE_KEY takes it (32 url-safe base64-encoded bytes)."""
    return Fernet.generate_key().decode()


class StorageKeys:
    """The keys device text is sealed with; raises ValueError for a key that is not one."""

    def __init__(self, keys: Sequence[str | bytes]) -> None:
        if not keys:
            raise ValueError("no key")
        self._fernet = MultiFernet([Fernet(key) for key in keys])

    def seal(self, data: bytes) -> bytes:
        return self._fernet.encrypt(data)

    def open(self, token: bytes) -> bytes:
        try:
            return self._fernet.decrypt(token)
        except InvalidToken:
            raise StorageError(UNREADABLE) from None

    def reseal(self, token: bytes) -> bytes:
        """`token` sealed again under the first key (rotation)."""
        try:
            return self._fernet.rotate(token)
        except InvalidToken:
            raise StorageError(UNREADABLE) from None


class FernetCipher:
    """LangGraph's cipher protocol (`CipherProtocol`) on StorageKeys."""

    def __init__(self, keys: StorageKeys) -> None:
        self.keys = keys

    def encrypt(self, plaintext: bytes) -> tuple[str, bytes]:
        return CIPHER_NAME, self.keys.seal(plaintext)

    def decrypt(self, ciphername: str, ciphertext: bytes) -> bytes:
        if ciphername != CIPHER_NAME:  # refused, never read as something else
            raise StorageError(f"stored data sealed with an unknown cipher {ciphername!r}")
        return self.keys.open(ciphertext)


def encrypted_serde(keys: StorageKeys) -> EncryptedSerializer:
    """The checkpointer's serializer: LangGraph's own, every value sealed. Values written
    before encryption (a type without `+fernet`) still load as they are."""
    # LangGraph is loaded here, not with the module: `labbot audit` opens audit rows with
    # StorageKeys and never loads the workflow (tests/bot/test_cli_imports.py)
    from langgraph.checkpoint.serde.encrypted import EncryptedSerializer
    from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

    return EncryptedSerializer(FernetCipher(keys), JsonPlusSerializer())
