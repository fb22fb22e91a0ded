"""Saved templates keep what a person typed sealed: a literal secret in a template's text, a
secret default and a secret example value are nowhere in the database in clear (rows, and for
SQLite every byte of its files), and every way of reading the library gives them back exactly;
a template saved before sealing reads as it is and is sealed by `reseal` (a key rotation too);
a downgrade is refused while a template is sealed."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from base.errors import StorageError
from storage.db import upgrade_engine
from storage.encryption import StorageKeys, new_key
from storage.reseal import reseal_all
from storage.schema import SEAL_COLUMN, saved_templates
from storage.template_store import TemplateDraft, TemplateStore
from tests.security.at_rest import found_in_database, found_in_files, sqlite_files
from tests.storage.test_audit_sealing import _downgrade

LITERAL, DEFAULT, EXAMPLE = "Tpl-Comm-91", "Def-Comm-92", "Ex-Comm-93"
SECRETS = [LITERAL, DEFAULT, EXAMPLE]
SNMP = (
    f"snmp-server community {LITERAL} RO\n"
    "snmp-server community {{ community }} RW\n"
    "snmp-server location {{ where }}\n"
)
DRAFT = TemplateDraft(
    name="lab_snmp",
    description="SNMP communities for the lab",
    templates={"cisco_ios": SNMP},
    params_schema={"community": {"type": "str", "default": DEFAULT}, "where": {"type": "str"}},
    example_params={"community": DEFAULT, "where": EXAMPLE},
    sections=["snmp-server *"],
    saved_by_id="console:alice",
    saved_by_name="alice",
)


async def in_clear(engine: AsyncEngine, database_url: str) -> dict[str, set[str]]:
    await engine.dispose()  # SQLite: what the pool held is on disk (the write-ahead log too)
    found = await found_in_database(engine, SECRETS)
    if database_url.startswith("sqlite"):
        found |= found_in_files(sqlite_files(Path(database_url.split("///", 1)[1])), SECRETS)
    return found


async def read_back(store: TemplateStore) -> None:
    """Every reading of the library gives the saved text, defaults and examples back."""
    saved = await store.resolve("lab_snmp", None, "")
    assert saved is not None and saved.templates == {"cisco_ios": SNMP}
    assert saved.params_schema["community"]["default"] == DEFAULT
    assert dict(saved.example_params) == {"community": DEFAULT, "where": EXAMPLE}
    assert await store.by_sha256(DRAFT.sha256) == saved
    assert await store.history("lab_snmp") == [saved] and await store.latest() == [saved]
    assert saved.sha256 == DRAFT.sha256  # its address is the plaintext's, as before sealing


async def test_a_saved_template_s_secrets_are_sealed_and_read_back_exactly(
    engine: AsyncEngine, database_url: str
) -> None:
    store = TemplateStore(engine, keys=StorageKeys([new_key()]))
    result = await store.save(DRAFT)
    again = await store.save(DRAFT)  # found by its hash, opened
    assert result.created and not again.created and again.template == result.template
    assert await in_clear(engine, database_url) == {}
    await read_back(store)
    stranger = TemplateStore(engine, keys=StorageKeys([new_key()]))
    with pytest.raises(StorageError, match="cannot be decrypted with any key"):
        await stranger.resolve("lab_snmp", None, "")


async def test_a_template_saved_before_sealing_reads_and_is_sealed_by_reseal(
    engine: AsyncEngine, database_url: str
) -> None:
    """The release before kept a template in clear: read as it is, then `reseal` (rotating to
    a new key) seals it; the old key alone no longer opens it."""
    old, new = new_key(), new_key()
    store = TemplateStore(engine, keys=StorageKeys([old]))
    await store.save(DRAFT)
    async with engine.begin() as conn:  # the row as the release before wrote it
        values = {
            "templates": DRAFT.templates,
            "params_schema": DRAFT.params_schema,
            "example_params": DRAFT.example_params,
            SEAL_COLUMN: None,
        }
        await conn.execute(sa.update(saved_templates).values(values))
    assert set(await in_clear(engine, database_url)) >= {"saved_templates.templates"}
    await read_back(store)
    async with engine.begin() as conn:
        first = await conn.run_sync(reseal_all, StorageKeys([old]))
        rotated = await conn.run_sync(reseal_all, StorageKeys([new, old]))
    assert first["saved_templates"] == 1 and rotated["saved_templates"] == 1
    assert await in_clear(engine, database_url) == {}
    await read_back(TemplateStore(engine, keys=StorageKeys([new])))
    with pytest.raises(StorageError, match="cannot be decrypted with any key"):
        await TemplateStore(engine, keys=StorageKeys([old])).resolve("lab_snmp", None, "")


async def test_a_downgrade_is_refused_while_a_template_is_sealed(engine: AsyncEngine) -> None:
    async with engine.begin() as conn:
        await conn.run_sync(_downgrade, "0015")
    await upgrade_engine(engine)
    await TemplateStore(engine, keys=StorageKeys([new_key()])).save(DRAFT)
    with pytest.raises(RuntimeError, match=r"1 saved template\(s\) are sealed.*restore the"):
        async with engine.begin() as conn:
            await conn.run_sync(_downgrade, "0015")
