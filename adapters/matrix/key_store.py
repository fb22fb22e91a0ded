"""The devices labbot's Matrix key store knows, and out-of-band verification of one of them.

Read and written in nio's SQLite store (beside `session.json`), which a running labbot reads
again on every decision, so `labbot matrix verify` takes effect without a restart. A device is
verified only when the operator gives its Ed25519 key as its owner sees it (Element: Settings →
Sessions → the session's key), which is what makes the verification out of band.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from adapters.matrix.e2ee import E2EE_AVAILABLE, store_file
from adapters.matrix.session import SESSION_FILE

if TYPE_CHECKING:  # importable only with the e2e extra
    from nio.crypto import OlmDevice
    from nio.store import SqliteStore

__all__ = ["DeviceStoreError", "list_devices", "verify_device"]


class DeviceStoreError(Exception):
    """The key store cannot be opened or the device is not in it; the text names the fix."""


@dataclass(frozen=True)
class DeviceRow:
    user_id: str
    device_id: str
    name: str
    ed25519: str
    state: str  # verified | unverified | ignored (keys shared, not trusted) | blacklisted


def _open_store(store_dir: Path) -> SqliteStore:
    if not E2EE_AVAILABLE:
        raise DeviceStoreError("matrix-nio's encryption support is missing: install labbot[e2e]")
    try:
        session = json.loads((store_dir / SESSION_FILE).read_text(encoding="utf-8"))
        user_id, device_id = session["user_id"], session["device_id"]
    except (OSError, ValueError, KeyError):
        raise DeviceStoreError(
            f"LABBOT_DATA_DIR: no Matrix session in {store_dir}; run `labbot serve` once first"
        ) from None
    if not store_file(store_dir, user_id, device_id).is_file():
        raise DeviceStoreError(f"LABBOT_DATA_DIR: no Matrix key store in {store_dir}")
    from nio import AsyncClientConfig
    from nio.store import SqliteStore

    return SqliteStore(user_id, device_id, str(store_dir), AsyncClientConfig().pickle_key)


def _state(device: OlmDevice) -> str:
    for state in ("verified", "blacklisted", "ignored"):
        if getattr(device, state):
            return state
    return "unverified"


def list_devices(store_dir: Path) -> list[DeviceRow]:
    """Every device of every person labbot has shared an encrypted room with, by user."""
    store = _open_store(store_dir)
    devices = store.load_device_keys()
    rows = [
        DeviceRow(d.user_id, d.id, d.display_name, d.ed25519, _state(d))
        for d in devices
        if not d.deleted
    ]
    return sorted(rows, key=lambda row: (row.user_id, row.device_id))


def verify_device(store_dir: Path, user_id: str, device_id: str, ed25519: str) -> DeviceRow:
    """Mark a device verified when `ed25519` is its key (spaces, as Element groups it, ignored)."""
    store = _open_store(store_dir)
    device = store.load_device_keys()[user_id].get(device_id)
    if device is None or device.deleted:
        raise DeviceStoreError(
            f"{user_id} {device_id}: labbot does not know this device; it must be in a room "
            "with labbot first (see `labbot matrix devices`)"
        )
    if "".join(ed25519.split()) != device.ed25519:
        raise DeviceStoreError(
            f"{user_id} {device_id}: the key given is not this device's key; compare it with "
            "what its owner's client shows, it may not be their device"
        )
    store.verify_device(device)
    return DeviceRow(user_id, device_id, device.display_name, device.ed25519, "verified")
