"""Audit rows keep typed text sealed: a request, a Modify feedback, an agent's arguments, a read
command, a refusal and a device's output holding a secret are nowhere in the database in clear
(rows, and for SQLite every byte of its files), read back exactly and verify; an insider with
the storage key who edits a sealed row's text is caught; a key rotation with `reseal` changes no
row hash; a row written before sealing reads, verifies, and is sealed by `reseal`; a row no key
opens is named, not a crash."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from storage.audit_chain import AuditChain
from storage.audit_records import Ballot
from storage.audit_seal import UNOPENED, open_row
from storage.audit_store import AuditStore
from storage.db import alembic_config, upgrade_engine
from storage.encryption import StorageKeys, new_key
from storage.reseal import reseal_all
from storage.schema import AUDIT_TABLES, SEAL_COLUMN, changes, decisions
from tests.security.at_rest import found_in_database, found_in_files, sqlite_files
from workflow.hashing import canonical_json

REQUEST = "configure snmp community Bob-Comm-77 RO on R1"
FEEDBACK = "use community Fb-Comm-78 instead"
ARGUMENTS = {"command": "show run | include Agent-Comm-79", "devices": ["R1"]}
READ = "show running-config | include Read-Comm-80"
OUTPUT = "R1(config)#snmp-server community Dev-Comm-81 RO"
REASON = "'snmp-server community Ref-Comm-82 RW' is not yours to approve"
SECRETS = ["Bob-Comm-77", "Fb-Comm-78", "Agent-Comm-79", "Read-Comm-80", "Dev-Comm-81"]
SECRETS += ["Ref-Comm-82"]
HMAC_KEY = b"audit-hmac-key"  # the chain's key: an insider below has the storage key, not this
WHERE = {"platform": "slack", "channel": "C1"}


def sealing(engine: AsyncEngine, keys: StorageKeys) -> AuditStore:
    return AuditStore(engine, chain=AuditChain(key=HMAC_KEY, storage_keys=keys))


async def record_everything(audit: AuditStore) -> None:
    """One row of each kind that holds typed or device text, each with a secret in it."""
    await audit.record_change(
        "chg-1", thread_key="slack:C1:1", requester_id="U1", requester_name="alice",
        text=REQUEST, **WHERE,
    )  # fmt: skip
    await audit.decide(
        Ballot(
            change_id="chg-1", gate="template", interrupt_id="int-1", choice="modify",
            content_sha256="a" * 64, feedback=FEEDBACK, actor_id="U2", actor_name="bob", **WHERE,
        )
    )  # fmt: skip
    await audit.record_agent_call(
        agent_id="agent:claude", agent_name="claude (agent of U1)", principal="U1",
        transport="stdio", tool="show", arguments=ARGUMENTS, outcome="answered",
    )  # fmt: skip
    await audit.record_reads(
        actor_id="U3", actor_name="carol", sent={"R1": READ},
        since=datetime(2000, 1, 1, tzinfo=UTC), limit=10, **WHERE,
    )  # fmt: skip
    await audit.record_refusal(
        change_id="chg-1", interrupt_id="int-1", gate="template", actor_id="U4",
        actor_name="dave", reason=REASON, **WHERE,
    )  # fmt: skip
    push = {"device": "R1", "lines_sha256": "b" * 64, "status": "success", "detail": OUTPUT}
    await audit.record_pushes("chg-1", [push])  # type: ignore[list-item]
    await audit.record_change_event(change_id="chg-1", status="done", detail=OUTPUT)


async def in_clear(engine: AsyncEngine, database_url: str) -> dict[str, set[str]]:
    """{where: the planted secrets found there in clear}: every column of every table and, for
    SQLite, every byte of the database's files."""
    await engine.dispose()  # SQLite: what the pool held is on disk (the write-ahead log too)
    found = await found_in_database(engine, SECRETS)
    if database_url.startswith("sqlite"):
        found |= found_in_files(sqlite_files(Path(database_url.split("///", 1)[1])), SECRETS)
    return found


async def row_hashes(engine: AsyncEngine) -> dict[int, str]:
    found: dict[int, str] = {}
    async with engine.connect() as conn:
        for table in AUDIT_TABLES:
            rows = await conn.execute(sa.select(table.c.seq, table.c.row_hash))
            found |= {int(seq): str(digest) for seq, digest in rows}
    return found


def shown(entries: list[object]) -> set[str]:
    """Every text an audit listing carries (what `labbot audit` masks and prints)."""
    fields = ("text", "detail", "post_check_detail", "status")
    return {str(getattr(entry, name)) for entry in entries for name in fields}


async def test_typed_and_device_text_is_sealed_read_back_exactly_and_verifies(
    engine: AsyncEngine, database_url: str
) -> None:
    audit = sealing(engine, StorageKeys([new_key()]))
    await record_everything(audit)
    entries = await audit.entries()
    summary = await audit.change_summary("chg-1")
    report = await audit.verify()
    assert await in_clear(engine, database_url) == {}
    assert {REQUEST, FEEDBACK, READ, OUTPUT, REASON} <= shown(entries)
    assert json.dumps(ARGUMENTS, sort_keys=True, separators=(",", ":")) in shown(entries)
    assert summary is not None and summary.text == REQUEST
    assert summary.gates[0].votes[0].feedback == FEEDBACK
    assert summary.pushes[0].detail == OUTPUT and summary.events[0].detail == OUTPUT
    assert report.ok and report.rows == 8, report


async def test_an_insider_with_the_storage_key_who_edits_sealed_text_is_caught(
    engine: AsyncEngine,
) -> None:
    """The edit is sealed again with the real storage key, so the row opens: its text no longer
    matches the hash, which needs the audit key the insider does not have."""
    keys = StorageKeys([new_key()])
    audit = sealing(engine, keys)
    await record_everything(audit)
    async with engine.begin() as conn:
        row = (await conn.execute(sa.select(changes))).one()
        forged = {"text": REQUEST.replace("RO", "RW")}
        sealed = keys.seal(canonical_json(forged))
        await conn.execute(sa.update(changes).where(changes.c.id == row.id).values(sealed=sealed))
    report = await audit.verify()
    listed = [e.text for e in await audit.entries() if e.kind == "change"]
    assert listed == [forged["text"]]  # it does open: the forgery is well made
    assert not report.ok and report.first_broken is not None
    assert (report.first_broken.kind, report.first_broken.table) == ("content", "changes")


async def test_a_key_rotation_reseals_every_row_and_changes_no_hash(engine: AsyncEngine) -> None:
    old, new = new_key(), new_key()
    await record_everything(sealing(engine, StorageKeys([old])))
    before = await row_hashes(engine)
    async with engine.begin() as conn:
        counts = await conn.run_sync(reseal_all, StorageKeys([new, old]))
    only_new = sealing(engine, StorageKeys([new]))  # the old key gone
    entries, report = await only_new.entries(), await only_new.verify()
    assert counts["changes"] == 1 and counts["decisions"] == 1 and counts["agent_calls"] == 1
    assert await row_hashes(engine) == before
    assert report.ok and report.rows == len(before), report
    assert REQUEST in shown(entries) and FEEDBACK in shown(entries)


async def test_a_row_from_before_sealing_reads_verifies_and_is_sealed_by_reseal(
    engine: AsyncEngine, database_url: str
) -> None:
    """Rows the release before this one wrote keep their text in clear (no `sealed`): read and
    verified as they are, then sealed by `reseal` under the same hashes."""
    keys = StorageKeys([new_key()])
    audit = sealing(engine, keys)
    await record_everything(audit)
    async with engine.begin() as conn:  # every row as the release before wrote it: in clear
        for table in (changes, decisions):
            for row in (await conn.execute(sa.select(table))).all():
                opened = open_row(table, row, keys)
                clear = {name: opened[name] for name in opened if name in table.c}
                clear[SEAL_COLUMN] = None
                await conn.execute(sa.update(table).where(table.c.id == row.id).values(clear))
    assert {"changes.text", "decisions.feedback"} <= set(await in_clear(engine, database_url))
    before, old_report = await row_hashes(engine), await audit.verify()
    old_entries = await audit.entries()
    async with engine.begin() as conn:
        counts = await conn.run_sync(reseal_all, keys)
    assert old_report.ok and REQUEST in shown(old_entries) and FEEDBACK in shown(old_entries)
    assert counts["changes"] == 1 and counts["decisions"] == 1
    assert await in_clear(engine, database_url) == {}
    assert await row_hashes(engine) == before
    assert (await audit.verify()).ok and shown(await audit.entries()) == shown(old_entries)


async def test_a_row_no_key_opens_is_named_with_its_cause(engine: AsyncEngine) -> None:
    await record_everything(sealing(engine, StorageKeys([new_key()])))
    report = await sealing(engine, StorageKeys([new_key()])).verify()  # the sealing key lost
    assert not report.ok and report.first_broken is not None
    assert (report.first_broken.kind, report.first_broken.table) == ("sealed", "changes")


async def test_a_row_no_key_opens_hides_nothing_else_of_the_listing(engine: AsyncEngine) -> None:
    """A key removed too soon leaves rows no key opens: `labbot audit` lists the rest as
    written and says of those that they are sealed, instead of failing on the first one."""
    kept, lost = StorageKeys([new_key()]), StorageKeys([new_key()])
    await record_everything(sealing(engine, kept))
    await sealing(engine, lost).record_change(
        "chg-2", thread_key="slack:C1:2", requester_id="U1", requester_name="alice",
        text="configure ntp on R2", **WHERE,
    )  # fmt: skip
    entries = await sealing(engine, kept).entries()
    texts = {entry.change_id: entry.text for entry in entries if entry.kind == "change"}
    assert texts == {"chg-1": REQUEST, "chg-2": UNOPENED}
    assert FEEDBACK in shown(entries) and "configure ntp" not in shown(entries)


async def test_text_written_beside_a_seal_is_caught(engine: AsyncEngine) -> None:
    """A row sealed by labbot never holds text in the clear place of a sealed column: an edit
    there (by whoever has no key at all) is named, and readers still show the sealed text."""
    audit = sealing(engine, StorageKeys([new_key()]))
    await record_everything(audit)
    async with engine.begin() as conn:
        await conn.execute(sa.update(decisions).values(feedback="approved as it was"))
    report = await audit.verify()
    assert [e.detail for e in await audit.entries() if e.kind == "decision"] == [FEEDBACK]
    assert not report.ok and report.first_broken is not None
    assert (report.first_broken.kind, report.first_broken.table) == ("content", "decisions")


def _downgrade(conn: sa.Connection, revision: str) -> None:
    from alembic import command

    command.downgrade(alembic_config(conn), revision)


async def test_a_downgrade_is_refused_while_a_row_is_sealed(engine: AsyncEngine) -> None:
    """Without sealed rows the schema goes back to 0014 and up again; with one, the release
    before could not read it and the chain forbids deleting it: refused, saying so."""
    async with engine.begin() as conn:
        await conn.run_sync(_downgrade, "0014")
    await upgrade_engine(engine)
    await record_everything(sealing(engine, StorageKeys([new_key()])))
    with pytest.raises(RuntimeError, match=r"8 audit row\(s\) are sealed.*restore the backup"):
        async with engine.begin() as conn:
            await conn.run_sync(_downgrade, "0014")
    assert (await sealing(engine, StorageKeys([new_key()])).verify()).rows == 8
