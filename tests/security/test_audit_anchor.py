"""An audit you can trust: rows keyed with HMAC, the chain head anchored outside the database
(head file and audit channel), so `labbot audit verify` catches deleting the last rows and
editing-and-rehashing, with or without the key; "who confirmed it" quotes user text on one line."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from adapters.chat import Request
from bot.cli.audit import verify_audit
from bot.cli.demo import demo_settings
from bot.records.audit_anchor import audit_key, head_file
from bot.records.storage_key import storage_keys
from bot.settings import Settings, load_settings
from storage.audit_chain import KEYED, PLAIN, content_of, row_hash
from storage.audit_seal import open_row
from storage.db import make_engine
from storage.encryption import StorageKeys
from storage.schema import AUDIT_TABLES, changes, decisions
from tests.bot.chat import RecordingAdapter, click, person
from tests.security.replay import attacked_bot, attacked_lab, thread
from tests.security.tally import attempt

AUDIT_ROOM = "audit-room"
FORGED = "apply ospf to R1\n  params gate: approve by boss (console:boss)\n  push R1: ✓ success"


async def _change_and_fake_lines(tmp_path: Path) -> tuple[Settings, RecordingAdapter]:
    chat = RecordingAdapter()
    async with (
        attacked_lab() as lab,
        attacked_bot(tmp_path, lab, chat, audit_channel=AUDIT_ROOM) as bot,
    ):
        await bot.service.handle(Request(thread("t"), person("alice"), "apply ospf to R1"))
        await bot.service.handle(click(chat, "bob", thread=thread("t")))
        await bot.service.handle(click(chat, "bob", thread=thread("t")))
        await bot.service.handle(Request(thread("f"), person("mallory"), FORGED))
        forged = await bot.audit.latest_change_for_thread(thread("f").key)
        assert forged is not None
        await bot.service.handle(
            Request(thread("f"), person("carol"), f"audit change={forged.change_id}")
        )
    return demo_settings(load_settings(data_dir=tmp_path)), chat


Edit = Callable[[sa.Connection, StorageKeys], None]  # with the keys the text is sealed with


async def _tamper(settings: Settings, edit: Edit) -> None:
    engine = make_engine(settings.database_url)
    async with engine.begin() as conn:
        await conn.run_sync(edit, storage_keys(settings))
    await engine.dispose()


def _delete_last_rows(conn: sa.Connection, _: StorageKeys) -> None:
    last = max(conn.execute(sa.select(sa.func.max(t.c.seq))).scalar() or 0 for t in AUDIT_TABLES)
    for table in AUDIT_TABLES:
        conn.execute(sa.delete(table).where(table.c.seq > last - 3))


def _rehash(key: bytes | None) -> Edit:
    """Edit the approver's name, then recompute every row's links (with `key`, or plain) over
    the rows' text (opened with the storage keys: the worst case)."""

    def edit(conn: sa.Connection, keys: StorageKeys) -> None:
        conn.execute(sa.update(decisions).values(actor_name="boss"))
        rows = [(t, r) for t in AUDIT_TABLES for r in conn.execute(sa.select(t))]
        prev = "0" * 64
        for table, row in sorted(rows, key=lambda item: item[1].seq):
            content = content_of(table, open_row(table, row, keys))
            digest = row_hash(table.name, row.seq, row.at, prev, content, key)
            scheme = KEYED if key else PLAIN
            conn.execute(
                sa.update(table)
                .where(table.c.id == row.id)
                .values(prev_hash=prev, row_hash=digest, hash_scheme=scheme)
            )
            prev = digest

    return edit


def _posted_head(chat: RecordingAdapter) -> str:
    posts = [m.text for _, where, m in chat.posts if where.channel == AUDIT_ROOM]
    assert posts and "Audit chain head" in posts[-1], posts
    return posts[-1].split("--head ")[1].rstrip("`.")


async def test_an_untouched_chain_verifies_against_its_anchors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings, chat = await _change_and_fake_lines(tmp_path)
    assert head_file(settings).read() is not None
    assert await verify_audit(settings)
    assert await verify_audit(settings, _posted_head(chat))
    assert "intact" in capsys.readouterr().out
    engine = make_engine(settings.database_url)
    async with engine.connect() as conn:
        schemes = {r.hash_scheme for r in await conn.execute(sa.select(changes))}
    await engine.dispose()
    assert schemes == {KEYED}


ATTACKS: dict[str, Any] = {
    "delete the last rows": (_delete_last_rows, "the last rows were deleted"),
    "edit and rehash without the key": (_rehash(None), "the chain was rewritten"),
    "edit and rehash with a guessed key": (_rehash(b"guess"), "content does not match"),
}


@pytest.mark.parametrize("name", list(ATTACKS))
async def test_tampering_is_caught(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    settings, _ = await _change_and_fake_lines(tmp_path)
    edit, expected = ATTACKS[name]
    await _tamper(settings, edit)
    caught = not await verify_audit(settings)
    said = capsys.readouterr().out
    attempt("audit: tampering", caught and expected in said)
    assert caught and expected in said, said


async def test_an_insider_with_the_key_is_caught_by_the_anchors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Rehashing with the real key passes row by row; the anchored head does not match."""
    settings, chat = await _change_and_fake_lines(tmp_path)
    await _tamper(settings, _rehash(audit_key(settings, create=False)))
    by_file = not await verify_audit(settings)
    by_chat = not await verify_audit(settings, _posted_head(chat))
    said = capsys.readouterr().out
    attempt("audit: tampering", by_file and by_chat)
    assert by_file and by_chat and "the chain was rewritten" in said, said


async def test_truncation_with_a_rolled_back_head_file_is_caught_by_the_posted_head(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings, chat = await _change_and_fake_lines(tmp_path)
    posted = _posted_head(chat)
    await _tamper(settings, _delete_last_rows)
    head_file(settings).path.unlink()  # the file sits beside the database: gone with it
    caught = not await verify_audit(settings, posted)
    said = capsys.readouterr().out
    attempt("audit: tampering", caught)
    assert caught and "the last rows were deleted" in said, said


async def test_a_request_with_line_breaks_cannot_print_fake_decision_lines(
    tmp_path: Path,
) -> None:
    _, chat = await _change_and_fake_lines(tmp_path)
    who = chat.messages()[-1]
    assert who.text == "Who confirmed it", chat.texts()
    summary = who.blocks[0].text
    lines = summary.splitlines()
    faked = [line for line in lines if line.lstrip().startswith(("params gate:", "push R1:"))]
    attempt("audit: fake lines in 'who confirmed it'", not faked)
    assert not faked, summary
    assert '  request: "apply ospf to R1\\n  params gate: approve by boss' in summary
    assert any(line.startswith("  outcome: failed") for line in lines), summary
