"""`ConfigBackupStore`: each device's running config captured before and after a push.

They are what `rollback` compares: from the config a push left back to the one before it.
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncEngine

from base.vocabulary import utc_now
from storage.db import is_sqlite
from storage.schema import config_backups
from workflow.model import BackupStage

STAGES: tuple[BackupStage, ...] = ("before", "after")


class ConfigBackupStore:
    """`workflow.ports.BackupStore`: running configs captured before and after a push."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self._insert = sqlite.insert if is_sqlite(engine) else postgresql.insert

    async def save_config(
        self, change_id: str, device: str, stage: BackupStage, config: str
    ) -> None:
        """Save (or replace, when a capture is retried) one device's config at `stage`."""
        if stage not in STAGES:  # a caller without type checks
            raise ValueError(f"stage must be one of {STAGES}, not {stage!r}")
        row = {"change_id": change_id, "device": device, "stage": stage, "config": config}
        upsert = self._insert(config_backups).values(**row, captured_at=utc_now())
        upsert = upsert.on_conflict_do_update(
            index_elements=["change_id", "device", "stage"],
            set_={"config": upsert.excluded.config, "captured_at": upsert.excluded.captured_at},
        )
        async with self.engine.begin() as conn:
            await conn.execute(upsert)

    async def configs(self, change_id: str, stage: BackupStage) -> dict[str, str]:
        query = sa.select(config_backups.c.device, config_backups.c.config).where(
            config_backups.c.change_id == change_id, config_backups.c.stage == stage
        )
        async with self.engine.connect() as conn:
            return {r.device: r.config for r in await conn.execute(query)}
