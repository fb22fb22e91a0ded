"""Checkpoints sealed at rest: a graph written by a release without sealing resumes under the
sealing serializer, a key is rotated with `reseal`, and nothing planted stays in clear."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from langgraph.types import Command

from base.errors import StorageError
from storage.checkpointer import SQLAlchemySaver
from storage.config_backups import ConfigBackupStore
from storage.db import make_engine
from storage.encryption import StorageKeys, encrypted_serde, new_key
from storage.reseal import TYPED_PAYLOADS, reseal_all
from storage.schema import config_backups
from tests.security.at_rest import found_in_database
from tests.storage.test_checkpointer import build_graph

PLANTED = "snmp-server community Pl4nted-Comm-81 RO"
CONFIG = {"configurable": {"thread_id": "slack:C1:1700.9"}}


async def raw_types(database_url: str) -> set[str]:
    engine = make_engine(database_url)
    try:
        async with engine.connect() as conn:
            found = set()
            for table, _ in TYPED_PAYLOADS:
                found |= set((await conn.execute(sa.select(table.c.type))).scalars())
            return found
    finally:
        await engine.dispose()


async def clear_in(database_url: str) -> dict[str, set[str]]:
    engine = make_engine(database_url)
    try:
        return await found_in_database(engine, ["Pl4nted-Comm-81"])
    finally:
        await engine.dispose()


async def test_a_thread_checkpointed_in_clear_resumes_sealed_and_reseals(database_url: str) -> None:
    async with SQLAlchemySaver.from_url(database_url) as plain:  # the release before sealing
        await build_graph(plain).ainvoke({"request": PLANTED, "log": []}, CONFIG)
    assert not any("+" in kind for kind in await raw_types(database_url))
    assert "checkpoint_blobs.blob" in await clear_in(database_url)

    old, new = new_key(), new_key()
    sealing = encrypted_serde(StorageKeys([old]))
    async with SQLAlchemySaver.from_url(database_url, serde=sealing) as saver:
        graph = build_graph(saver)
        (pending,) = (await graph.aget_state(CONFIG)).interrupts  # written in clear, loaded
        assert pending.value == {"gate": "template", "shows": f"router ospf 1 # {PLANTED}"}
        await graph.ainvoke(Command(resume={pending.id: "approved"}), CONFIG)
    kinds = await raw_types(database_url)
    assert {k for k in kinds if k.endswith("+fernet")} and {k for k in kinds if "+" not in k}

    rotated = StorageKeys([new, old])
    engine = make_engine(database_url)
    try:
        sealed_old = ConfigBackupStore(engine, StorageKeys([old]))
        await sealed_old.save_config("c", "R1", "before", PLANTED)
        async with engine.begin() as conn:  # and one backup from before sealing
            await conn.execute(
                sa.insert(config_backups).values(
                    change_id="c0", device="R1", stage="before", config=PLANTED,
                    captured_at=sa.func.now(),
                )
            )  # fmt: skip
            counts = await conn.run_sync(reseal_all, rotated)
        only_new = ConfigBackupStore(engine, StorageKeys([new]))
        assert await only_new.configs("c", "before") == {"R1": PLANTED}
        assert await only_new.configs("c0", "before") == {"R1": PLANTED}
        with pytest.raises(StorageError, match="LABBOT_STORAGE_KEY"):
            await sealed_old.configs("c", "before")
    finally:
        await engine.dispose()
    assert counts["config_backups"] == 2 and counts["checkpoint_blobs"] > 0
    assert all(k.endswith("+fernet") for k in await raw_types(database_url) if k != "empty")
    assert await clear_in(database_url) == {}

    only_new_serde = encrypted_serde(StorageKeys([new]))  # the old key gone: all still loads
    async with SQLAlchemySaver.from_url(database_url, serde=only_new_serde) as saver:
        graph = build_graph(saver)
        (pending,) = (await graph.aget_state(CONFIG)).interrupts
        assert pending.value == {"gate": "params", "shows": {"R1": {"area": 0}}}
        final = await graph.ainvoke(Command(resume={pending.id: "ok"}), CONFIG)
    assert final["log"][-1] == "pushed" and final["request"] == PLANTED
