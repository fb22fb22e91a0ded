"""`labbot rollback CHANGE [--lab NAME]`: the console chat, its first line `rollback CHANGE`.
Under a labs file (LABBOT_LABS) it opens on the lab the change was made on, as its audit rows
say; `--lab` naming another lab is refused in one line (its lines and backups are that lab's)."""

from __future__ import annotations

from rich.console import Console

from base.errors import GateError, StorageError
from bot import messages
from bot.cli.console import run_console
from bot.labs.lab_option import refuse_lab_without_labs
from bot.records.place import open_for_reading
from bot.records.storage_key import reading_keys
from bot.settings import Settings
from storage.audit_chain import AuditChain
from storage.audit_records import ChangeRecord
from storage.audit_store import AuditStore
from storage.db import make_engine

__all__ = ["run_rollback"]


async def run_rollback(
    settings: Settings, change_id: str, *, as_user: str | None = None, lab: str | None = None
) -> None:
    """Propose undoing `change_id` in the console chat (as `as_user` when given), on its lab."""
    refuse_lab_without_labs(settings, lab)
    first = (f"as {as_user}",) if as_user else ()
    lines = (*first, f"rollback {change_id}")
    if settings.labs is not None:
        lab = await _lab_of(settings, change_id, lab)
    await run_console(settings, first_lines=lines, lab=lab)


async def _lab_of(settings: Settings, change_id: str, asked: str | None) -> str:
    """The lab to open on: the one the change was made on (said in a line), `asked` when the
    change is not on record or names no lab (the chat then says what it says today)."""
    try:
        change = await _change(settings, change_id)
    except StorageError:  # no database yet: with a lab named, the console says what it says
        if asked is None:
            raise
        change = None
    made_on = change.lab if change is not None else None
    if asked is not None:
        if made_on and made_on != asked:
            said = messages.ROLLBACK_OTHER_LAB
            raise GateError(said.format(change_id=change_id, made_on=made_on, here=asked))
        return asked
    if change is None:
        raise GateError(messages.ROLLBACK_UNKNOWN.format(change_id=change_id))
    if not made_on:
        raise GateError(messages.ROLLBACK_NO_LAB_RECORDED.format(change_id=change_id))
    said = messages.ROLLBACK_ON_LAB.format(change_id=change_id, lab=made_on)
    Console(soft_wrap=True, highlight=False).print(said)
    return made_on


async def _change(settings: Settings, change_id: str) -> ChangeRecord | None:
    """The change as recorded (None: it is not); the database must be there."""
    await open_for_reading(settings)
    engine = make_engine(settings.database_url)
    try:
        store = AuditStore(engine, chain=AuditChain(storage_keys=reading_keys(settings)))
        return await store.change_summary(change_id)
    finally:
        await engine.dispose()
