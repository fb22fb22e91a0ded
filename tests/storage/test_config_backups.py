"""Running configs captured before and after a push, per change and device."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncEngine

from storage.config_backups import ConfigBackupStore


async def test_backups_keep_before_and_after_per_device(engine: AsyncEngine) -> None:
    backups = ConfigBackupStore(engine)
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
