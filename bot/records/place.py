"""Where labbot keeps its records, said the same way by every command: the database (by default
the embedded `labbot.db` inside LABBOT_DATA_DIR, bot/settings.py) and the data dir beside it.

Reading commands (`audit`, `audit verify`, `audit report`, `pending`) open the database that is
there and never create one: a missing file is one line naming where they looked."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.engine import make_url

from base.errors import StorageError
from bot import messages
from bot.settings import DEMO_DATA_DIR, EMBEDDED_DATABASE, Settings
from storage.db import check_database, upgrade_database

__all__ = ["database_place", "database_shown", "demo_is_here", "open_for_reading", "sqlite_path"]


def sqlite_path(database_url: str) -> Path | None:
    """The file of an embedded (SQLite) database; None for PostgreSQL or an in-memory one."""
    url = make_url(database_url)
    if url.get_backend_name() != "sqlite" or url.database in (None, "", ":memory:"):
        return None
    return Path(url.database)


def demo_is_here(settings: Settings) -> str:
    """A note naming the demo's place when its records are here and were not what was read."""
    demo = DEMO_DATA_DIR.resolve()
    if settings.data_dir.resolve() == demo or not (demo / EMBEDDED_DATABASE).is_file():
        return ""
    return messages.DEMO_RECORDS_HERE.format(data_dir=DEMO_DATA_DIR)


def database_shown(url: str) -> str:
    """The database as a person recognises it: the file's path, or the URL without password."""
    path = sqlite_path(url)
    if path is not None:
        return str(path)
    return make_url(url).render_as_string(hide_password=True)


def database_place(settings: Settings) -> str:
    """The configured database, shown as `database_shown` shows it."""
    return database_shown(settings.database_url)


async def open_for_reading(settings: Settings) -> None:
    """Raise one StorageError line unless the database exists and holds labbot's tables; an
    existing one is brought to the newest schema, as every command does."""
    where = database_place(settings)
    path = sqlite_path(settings.database_url)
    if path is not None and not path.is_file():
        missing = messages.NO_DATABASE.format(where=where, data_dir=settings.data_dir.resolve())
        raise StorageError(missing + demo_is_here(settings))
    if await check_database(settings.database_url) is None:
        raise StorageError(messages.NO_SCHEMA.format(where=where))
    await upgrade_database(settings.database_url)
