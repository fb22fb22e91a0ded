"""Running configs captured before and after a push, per change and device: exact, sealed."""

from __future__ import annotations

from typing import cast

import pytest
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from base.errors import StorageError
from storage.checkpointer import SQLAlchemySaver
from storage.config_backups import ConfigBackupStore
from storage.encryption import StorageKeys, new_key
from storage.schema import config_backups

SECRET_CONFIG = "hostname R1\nsnmp-server community Pl4nted-Comm RO\nusername a secret 0 Pw-9\n"


async def test_backups_keep_before_and_after_per_device(engine: AsyncEngine) -> None:
    backups = ConfigBackupStore(engine, StorageKeys([new_key()]))
    await backups.save_config("chg-1", "R1", "before", "hostname R1\n")
    await backups.save_config("chg-1", "R2", "before", "hostname R2\n")
    await backups.save_config("chg-1", "R1", "after", "hostname R1\nrouter ospf 1\n")
    await backups.save_config("chg-1", "R1", "before", "hostname R1 (retried)\n")
    assert await backups.configs("chg-1", "before") == {
        "R1": "hostname R1 (retried)\n",
        "R2": "hostname R2\n",
    }
    assert await backups.configs("chg-1", "after") == {"R1": "hostname R1\nrouter ospf 1\n"}
    assert await backups.configs("chg-2", "before") == {}


async def raw_rows(engine: AsyncEngine) -> list[tuple[object, ...]]:
    async with engine.connect() as conn:
        return [tuple(row) for row in await conn.execute(sa.select(config_backups))]


async def test_a_backup_is_exact_when_read_and_sealed_at_rest(engine: AsyncEngine) -> None:
    backups = ConfigBackupStore(engine, StorageKeys([new_key()]))
    await backups.save_config("chg-1", "R1", "before", SECRET_CONFIG)
    assert await backups.configs("chg-1", "before") == {"R1": SECRET_CONFIG}
    stored = repr(await raw_rows(engine))
    assert "Pl4nted-Comm" not in stored and "Pw-9" not in stored and "hostname" not in stored


async def test_rotation_reads_with_the_old_key_and_refuses_without_it(engine: AsyncEngine) -> None:
    old, new = new_key(), new_key()
    await ConfigBackupStore(engine, StorageKeys([old])).save_config(
        "chg-1", "R1", "before", SECRET_CONFIG
    )
    rotating = ConfigBackupStore(engine, StorageKeys([new, old]))
    assert await rotating.configs("chg-1", "before") == {"R1": SECRET_CONFIG}
    with pytest.raises(StorageError, match="LABBOT_STORAGE_KEY"):
        await ConfigBackupStore(engine, StorageKeys([new])).configs("chg-1", "before")


async def test_a_backup_from_before_sealing_is_read_as_it_was_stored(engine: AsyncEngine) -> None:
    async with engine.begin() as conn:
        await conn.execute(
            sa.insert(config_backups).values(
                change_id="chg-0", device="R1", stage="before", config="hostname R1\n",
                captured_at=sa.func.now(),
            )
        )  # fmt: skip
    backups = ConfigBackupStore(engine, StorageKeys([new_key()]))
    assert await backups.configs("chg-0", "before") == {"R1": "hostname R1\n"}


async def test_a_batch_is_one_transaction_on_the_checkpointers_engine(database_url: str) -> None:
    """labbot stores backups on the checkpointer's engine, which commits each statement by
    itself: a push's batch is still one transaction, so a row that cannot be stored leaves none
    of them (the gateway then stores each device alone and names the one that failed)."""
    unbindable = cast(str, object())  # no database driver takes this as a device name
    async with SQLAlchemySaver.from_url(database_url) as saver:
        backups = ConfigBackupStore(saver.engine, StorageKeys([new_key()]))
        with pytest.raises(sa.exc.StatementError):
            await backups.save_configs(
                "chg-1", "before", {"R1": "hostname R1\n", unbindable: "hostname R2\n"}
            )
        assert await backups.configs("chg-1", "before") == {}
        await backups.save_configs("chg-1", "before", {"R1": "hostname R1\n"})
        assert await backups.configs("chg-1", "before") == {"R1": "hostname R1\n"}
