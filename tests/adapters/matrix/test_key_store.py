"""What labbot keeps beside nio's key store: its room keys (bounded, private) and the device
commands' errors when there is no store to read."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from adapters.matrix.e2ee import ROOM_KEYS_FILE, ROOM_KEYS_KEPT, RoomKeys
from adapters.matrix.key_store import DeviceStoreError, list_devices, verify_device


def test_room_keys_keep_the_newest_per_room_privately_across_restarts(tmp_path: Path) -> None:
    keys = RoomKeys(tmp_path / ROOM_KEYS_FILE)
    for n in range(ROOM_KEYS_KEPT + 5):
        keys.add("!a:hs", f"s{n}", f"k{n}")
    keys.add("!b:hs", "only", "key")
    again = RoomKeys(tmp_path / ROOM_KEYS_FILE)
    kept = again.of("!a:hs")
    assert len(kept) == ROOM_KEYS_KEPT
    assert kept[0] == ("s5", "k5") and kept[-1] == (
        f"s{ROOM_KEYS_KEPT + 4}",
        f"k{ROOM_KEYS_KEPT + 4}",
    )
    assert again.of("!b:hs") == [("only", "key")] and again.of("!c:hs") == []
    assert stat.S_IMODE((tmp_path / ROOM_KEYS_FILE).stat().st_mode) == 0o600


def test_device_commands_name_the_missing_store(tmp_path: Path) -> None:
    with pytest.raises(DeviceStoreError, match=r"no Matrix session in .*run `labbot serve` once"):
        list_devices(tmp_path)
    (tmp_path / "session.json").write_text('{"user_id": "@bot:hs", "device_id": "DEV"}')
    with pytest.raises(DeviceStoreError, match="no Matrix key store"):
        verify_device(tmp_path, "@bob:hs", "BOBDEV", "key")
