"""The keys sealing device text at rest (config backups, checkpoints), from settings: kept
outside the database like the audit key. LABBOT_STORAGE_KEY, else (embedded SQLite only) a key
generated once into LABBOT_DATA_DIR/storage.key."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncEngine

from base.errors import ConfigError
from bot import messages
from bot.records.key_files import key_from_file
from bot.records.place import sqlite_path
from bot.settings import Settings
from storage.db import make_engine, upgrade_engine
from storage.encryption import StorageKeys, new_key
from storage.key_check import unopened_table
from storage.reseal import reseal_all

__all__ = [
    "KEY_FILE",
    "check_storage_key",
    "reading_keys",
    "refuse_a_wrong_key",
    "reseal_database",
    "storage_keys",
]

KEY_FILE = "storage.key"


def storage_keys(settings: Settings) -> StorageKeys:
    """The keys, first one sealing; a shared database (PostgreSQL) is for replicas, which must
    share them: there the setting is required."""
    if settings.storage_key is not None:
        keys = [k.strip() for k in settings.storage_key.get_secret_value().split(",")]
    elif not settings.database_url.startswith("sqlite"):
        raise ConfigError(messages.STORAGE_KEY_REQUIRED)
    else:
        keys = [key_from_file(settings.data_dir / KEY_FILE, new_key, "LABBOT_STORAGE_KEY") or ""]
    try:
        return StorageKeys([key for key in keys if key])
    except ValueError:  # cryptography says which way a key is wrong; the message says what to do
        raise ConfigError(messages.STORAGE_KEY_MALFORMED) from None


def reading_keys(settings: Settings) -> StorageKeys | None:
    """The keys the reading commands (`labbot audit`, `audit verify`, `audit anchor`, the
    doctor's audit head) open sealed audit rows with; they make none: on SQLite without the
    setting or its file, None (a sealed row is then named, not opened with a key made up now).
    A shared database needs the setting: the key its replicas run with."""
    if settings.storage_key is None and not settings.database_url.startswith("sqlite"):
        raise ConfigError(messages.STORAGE_KEY_TO_READ)
    if settings.storage_key is None and not (settings.data_dir / KEY_FILE).exists():
        return None
    return storage_keys(settings)


async def refuse_a_wrong_key(engine: AsyncEngine, keys: StorageKeys) -> None:
    """ConfigError in one line when `keys` do not open the newest sealed value of a table: a
    wrong key would seal new rows beside ones it cannot open (the audit then reads broken)."""
    async with engine.connect() as conn:
        table = await conn.run_sync(unopened_table, keys)
    if table is not None:
        raise ConfigError(messages.STORAGE_KEY_WRONG.format(table=table))


async def check_storage_key(settings: Settings, keys: StorageKeys) -> None:
    """`refuse_a_wrong_key` on the configured database, as `serve` starts (an embedded one
    not made yet holds nothing sealed)."""
    path = sqlite_path(settings.database_url)
    if path is not None and not path.is_file():
        return
    engine = make_engine(settings.database_url)
    try:
        await refuse_a_wrong_key(engine, keys)
    finally:
        await engine.dispose()


async def reseal_database(settings: Settings) -> dict[str, int]:
    """`labbot db reseal`: every sealed value under the first key, every value in clear sealed;
    {table: rows}. The schema is brought to head first (backups in clear need its columns)."""
    keys = storage_keys(settings)
    engine = make_engine(settings.database_url)
    try:
        await upgrade_engine(engine)
        async with engine.begin() as conn:
            return await conn.run_sync(reseal_all, keys)
    finally:
        await engine.dispose()
