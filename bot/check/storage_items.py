"""The storage part of the doctor: the data dir, the database (reachable, at the newest schema;
never created here), the audit key and the anchored head."""

from __future__ import annotations

import os

from base.errors import ConfigError, LabbotError, StorageError
from bot import messages
from bot.audit.table import chain_break
from bot.check.findings import Finding, fail, ok
from bot.records.audit_anchor import KEY_FILE, audit_key, head_file
from bot.records.audit_verify import anchored_elsewhere, verified
from bot.records.place import database_place, sqlite_path
from bot.records.storage_key import KEY_FILE as STORAGE_KEY_FILE
from bot.records.storage_key import check_storage_key, reading_keys, storage_keys
from bot.settings import Settings
from storage.db import check_database, schema_head


def data_dir_finding(settings: Settings) -> Finding:
    path = settings.data_dir.resolve()
    folder = path if path.exists() else next(p for p in path.parents if p.exists())
    if not os.access(folder, os.W_OK):
        said = messages.DATA_DIR_UNWRITABLE.format(path=path)
        return fail("data dir", said, messages.DATA_DIR_FIX)
    return ok("data dir", messages.DATA_DIR.format(path=path))


async def database_findings(settings: Settings) -> tuple[bool, list[Finding]]:
    """(whether the database is there at the newest schema, what was found)."""
    where = database_place(settings)
    path = sqlite_path(settings.database_url)
    if path is not None and not path.is_file():
        return False, [ok("database", messages.DATABASE_NEW.format(where=where))]
    try:
        revision = await check_database(settings.database_url)
    except StorageError as exc:
        return False, [fail("database", str(exc), messages.DATABASE_FIX)]
    head = schema_head()
    if revision == head:
        return True, [ok("database", messages.DATABASE_AT_HEAD.format(where=where, revision=head))]
    shown = {"where": where, "revision": revision or "none", "head": head}
    if path is not None:
        return False, [ok("database", messages.DATABASE_BEHIND_EMBEDDED.format(**shown))]
    said = messages.DATABASE_BEHIND.format(**shown)
    return False, [fail("database", said, messages.DATABASE_BEHIND_FIX)]


def audit_key_finding(settings: Settings) -> Finding:
    try:
        key = audit_key(settings, create=False)
    except LabbotError as exc:
        return fail("audit key", str(exc))
    path = settings.data_dir.resolve() / KEY_FILE
    if settings.audit_key is not None:
        return ok("audit key", messages.AUDIT_KEY_SETTING)
    if key is not None:
        return ok("audit key", messages.AUDIT_KEY_FILE.format(path=path))
    return ok("audit key", messages.AUDIT_KEY_LATER.format(path=path))


def storage_key_finding(settings: Settings) -> Finding:
    """The keys sealing device text at rest, read as `serve` reads them (none made here)."""
    path = settings.data_dir.resolve() / STORAGE_KEY_FILE
    embedded = settings.database_url.startswith("sqlite")
    if settings.storage_key is None and embedded and not path.exists():
        return ok("storage key", messages.STORAGE_KEY_LATER.format(path=path))
    try:
        storage_keys(settings)
    except LabbotError as exc:
        return fail("storage key", str(exc))
    if settings.storage_key is not None:
        return ok("storage key", messages.STORAGE_KEY_SETTING)
    return ok("storage key", messages.AUDIT_KEY_FILE.format(path=path))


async def storage_key_opens_finding(settings: Settings) -> Finding | None:
    """A ✗ when the keys do not open what the database sealed last, as `serve` refuses them
    (None: they do, or there is no key to try, which `storage_key_finding` reports)."""
    try:
        keys = reading_keys(settings)
    except LabbotError:
        return None
    try:
        if keys is not None:
            await check_storage_key(settings, keys)
    except ConfigError as exc:
        return fail("storage key", str(exc))
    return None


async def audit_head_finding(settings: Settings) -> Finding:
    """The chain against its anchored head, as `labbot audit verify` checks it."""
    file = head_file(settings)
    try:
        anchor = file.read()
        report, database, other = await verified(settings, anchor)
    except LabbotError as exc:
        return fail("audit head", str(exc))
    if not report.ok:
        said = messages.AUDIT_HEAD_BROKEN.format(at=chain_break(report.first_broken))
        return fail("audit head", said, messages.AUDIT_HEAD_BROKEN_FIX)
    if other and anchor is not None:
        said = anchored_elsewhere(settings, anchor, database)
        return fail("audit head", said, messages.AUDIT_HEAD_ANCHOR_FIX)
    if anchor is None and report.rows:
        said = messages.AUDIT_HEAD_MISSING.format(rows=report.rows, file=file.path)
        return fail("audit head", said, messages.AUDIT_HEAD_ANCHOR_FIX)
    if anchor is None:
        return ok("audit head", messages.AUDIT_HEAD_EMPTY)
    return ok("audit head", messages.AUDIT_HEAD_INTACT.format(rows=report.rows, file=file.path))


async def storage_findings(settings: Settings) -> list[Finding]:
    ready, found = await database_findings(settings)
    findings = [
        data_dir_finding(settings),
        *found,
        audit_key_finding(settings),
        storage_key_finding(settings),
    ]
    if ready:
        wrong_key = await storage_key_opens_finding(settings)
        findings += [wrong_key] if wrong_key else []
        findings.append(await audit_head_finding(settings))
    return findings
