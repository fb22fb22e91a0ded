"""Engines, migrations and database errors: the one place that knows SQLite from PostgreSQL.

Supported URLs: `sqlite+aiosqlite:///path.db` (embedded default) and
`postgresql+psycopg://user@host:port/db`. Plain `sqlite:///` and `postgresql://` are accepted and
given the async driver. Every failure to reach, open or migrate a database becomes one
`StorageError` line that names the problem and the fix.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
import weakref
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import psycopg
from sqlalchemy import Connection, Engine, create_engine, event, inspect, text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, DisconnectionError, SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from base.errors import StorageError

if TYPE_CHECKING:  # alembic (~0.8 s to import) only when migrating, not to serve on PostgreSQL
    from alembic.config import Config

__all__ = [
    "check_database",
    "is_unreachable",
    "make_engine",
    "schema_head",
    "upgrade_database",
    "upgrade_engine",
]

MIGRATIONS_DIR = Path(__file__).parent / "migrations"
SQLITE_BUSY_TIMEOUT_MS = 30_000
WAL_TRIES = 8  # switching a new file to WAL while others use it (see _use_wal)
WAL_PAUSE_S = 0.02
# Connections kept open per engine; beyond it up to 10 more are opened and closed on demand,
# which costs a full PostgreSQL connection setup each time under a burst.
PG_POOL_SIZE = 10
PG_CONNECT_TIMEOUT_S = 10  # an unroutable host fails in seconds, not after the OS's minutes
# Arbitrary constants naming the advisory locks labbot takes on PostgreSQL.
MIGRATION_LOCK_KEY = 0x1AB_B07_001
EXAMPLE_URLS = "sqlite+aiosqlite:///./labbot.db or postgresql+psycopg://user@host:5432/labbot"
_DRIVERS = {"sqlite": "sqlite+aiosqlite", "postgresql": "postgresql+psycopg"}


def parse_url(url: str) -> URL:
    """The URL with labbot's async driver, or StorageError naming what is wrong with it."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise StorageError(f"database URL {url!r} is not a URL: use {EXAMPLE_URLS}") from None
    backend = "postgresql" if parsed.get_backend_name() == "postgres" else parsed.get_backend_name()
    if backend not in _DRIVERS:
        raise StorageError(
            f"database URL {parsed.render_as_string(hide_password=True)!r} uses "
            f"{backend!r}, which labbot does not support: use {EXAMPLE_URLS}"
        )
    return parsed.set(drivername=_DRIVERS[backend])


def is_sqlite(engine: AsyncEngine | AsyncConnection) -> bool:
    return engine.dialect.name == "sqlite"


def make_engine(url: str, *, pre_ping: bool = True, autocommit: bool = False) -> AsyncEngine:
    """An async engine tuned for labbot: SQLite in WAL mode with a busy timeout; on PostgreSQL
    a pool that pings a connection before lending it.

    `pre_ping=False` and `autocommit=True` are for a caller whose statements are each complete
    (the checkpointer): it retries on a dropped connection instead of pinging, and takes a
    transaction only where it needs one (`transactional(engine)`), saving round trips and mode
    switches on every use.
    """
    parsed = parse_url(url)
    options: dict[str, Any] = {"json_serializer": json_text}
    if autocommit:
        options |= {"isolation_level": "AUTOCOMMIT", "pool_reset_on_return": None}
    if parsed.get_backend_name() == "postgresql":
        connect_args = {"connect_timeout": PG_CONNECT_TIMEOUT_S}
        return create_async_engine(
            parsed,
            pool_pre_ping=pre_ping,
            pool_size=PG_POOL_SIZE,
            connect_args=connect_args,
            **options,
        )
    if parsed.database and parsed.database != ":memory:":
        _make_parent_dir(Path(parsed.database))
    engine = create_async_engine(parsed, **options)
    event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
    return engine


def transactional(engine: AsyncEngine) -> AsyncEngine:
    """`engine` with real transactions, also when it was made with `autocommit=True`."""
    level = "SERIALIZABLE" if is_sqlite(engine) else "READ COMMITTED"  # the drivers' defaults
    return engine.execution_options(isolation_level=level)


def json_text(value: Any) -> str:
    """JSON for metadata columns; an odd value (a UUID run id) becomes its string."""
    return json.dumps(value, default=str)


def _make_parent_dir(path: Path) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StorageError(
            f"cannot create the directory {str(path.parent)!r} for the SQLite database: "
            f"{exc.strerror} — choose a writable path"
        ) from None


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    """WAL lets readers run beside the writer; the busy timeout makes writers wait, not fail."""
    cursor = dbapi_connection.cursor()
    cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")  # first: WAL needs a lock
    _use_wal(cursor)
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def _use_wal(cursor: Any) -> None:
    """Switch the file to WAL (it stays so). The switch takes the file's exclusive lock, and
    SQLite answers "database is locked" at once, without the busy timeout, while another
    connection works in a new file (four processes upgrading it at the same time): asked again
    a few times, briefly, unless the file is WAL already."""
    for attempt in range(1, WAL_TRIES + 1):
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or attempt == WAL_TRIES:
                raise
        cursor.execute("PRAGMA journal_mode")
        if str(cursor.fetchone()[0]).lower() == "wal":
            return
        time.sleep(WAL_PAUSE_S * attempt)


def sqlite_file_twin(engine: AsyncEngine) -> Engine | None:
    """The same SQLite file through the stdlib driver, for work that runs whole in one worker
    thread (None unless `engine` is on a SQLite file). aiosqlite hops threads for every cursor
    call; a thread running a whole operation hops once."""
    url = engine.url
    if url.get_backend_name() != "sqlite" or url.database in (None, "", ":memory:"):
        return None
    twin = create_engine(
        url.set(drivername="sqlite+pysqlite"),
        json_serializer=json_text,
        connect_args={"check_same_thread": False},
    )
    event.listen(twin, "connect", _sqlite_pragmas)
    return twin


# One queue per engine, event loop and lock key: within a process, writers of one kind wait here,
# not holding a pooled connection each (50 waiters would empty the pool and time out).
_LOCAL_QUEUES: weakref.WeakKeyDictionary[
    AsyncEngine, dict[tuple[asyncio.AbstractEventLoop, int], asyncio.Lock]
] = weakref.WeakKeyDictionary()


def _local_queue(engine: AsyncEngine, lock_key: int) -> asyncio.Lock:
    queues = _LOCAL_QUEUES.setdefault(engine, {})
    return queues.setdefault((asyncio.get_running_loop(), lock_key), asyncio.Lock())


@asynccontextmanager
async def serialized_transaction(engine: AsyncEngine, lock_key: int) -> AsyncIterator[Any]:
    """A transaction no other writer of the same kind runs beside (read-then-write safe).

    In this process the writers queue first without a connection; then, across processes,
    PostgreSQL: a transaction-scoped advisory lock on `lock_key`, so replicas queue up.
    SQLite: BEGIN IMMEDIATE takes the database write lock before the first read, so the rows
    read are still the latest when the transaction writes (no SQLITE_BUSY on upgrade).
    """
    async with _local_queue(engine, lock_key), _writer(engine).begin() as conn:
        if is_sqlite(engine):
            await conn.exec_driver_sql("BEGIN IMMEDIATE")
        else:
            await conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": lock_key})
        yield conn


def _writer(engine: AsyncEngine) -> AsyncEngine:
    """The engine a serialized transaction runs on. SQLite: `engine` as it is, whatever its
    mode: the explicit BEGIN IMMEDIATE opens the transaction and sqlite3's commit and rollback
    end it also on an autocommit connection, while switching the connection's mode is a PRAGMA
    through aiosqlite's thread on every lend and return (most of a read's round trips).
    PostgreSQL: a real transaction also on an autocommit engine (a flag of the driver)."""
    return engine if is_sqlite(engine) else transactional(engine)


# --- migrations ---------------------------------------------------------------------------------


def alembic_config(connection: Connection | None = None) -> Config:
    """Alembic configured in code (no alembic.ini): our migrations, on the given connection."""
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.attributes["connection"] = connection
    return config


def schema_head() -> str:
    """The newest migration's revision, read from the file names (`NNNN_what.py` holds revision
    NNNN; tests/storage/test_db.py checks it is alembic's head): a start on a database already
    migrated (by the migration job) does not import alembic, ~0.8 s."""
    versions = (MIGRATIONS_DIR / "versions").glob("[0-9]*_*.py")
    return max(path.name.partition("_")[0] for path in versions)


async def upgrade_engine(engine: AsyncEngine, revision: str = "head") -> str:
    """Migrate to `revision` in one transaction, one migrator at a time; returns the revision."""
    key = MIGRATION_LOCK_KEY
    try:
        if revision == "head":
            async with engine.connect() as conn:
                current = await conn.run_sync(_current_revision)
            if current == schema_head():
                return current
        async with serialized_transaction(engine, key) as conn:
            return str(await conn.run_sync(_upgrade_sync, revision))
    except SQLAlchemyError as exc:
        raise describe_error(engine.url, exc) from None


def _upgrade_sync(connection: Connection, revision: str) -> str | None:
    from alembic import command

    command.upgrade(alembic_config(connection), revision)
    return _current_revision(connection)


def _current_revision(connection: Connection) -> str | None:
    """The revision in alembic's own table (None: not migrated yet)."""
    if not inspect(connection).has_table("alembic_version"):
        return None
    return connection.execute(text("SELECT version_num FROM alembic_version")).scalar()


async def upgrade_database(url: str, revision: str = "head") -> str:
    """`labbot db upgrade`: bring the schema at `url` to `revision`; returns the revision."""
    engine = make_engine(url)
    try:
        return await upgrade_engine(engine, revision)
    finally:
        await engine.dispose()


async def check_database(url: str) -> str | None:
    """Connect once; return the schema revision (None: not migrated yet) or raise StorageError."""
    engine = make_engine(url)
    try:
        async with engine.connect() as conn:
            await conn.execute(text("SELECT 1"))
            return await conn.run_sync(_current_revision)
    except SQLAlchemyError as exc:
        raise describe_error(engine.url, exc) from None
    finally:
        await engine.dispose()


# --- errors -------------------------------------------------------------------------------------

# What PostgreSQL says when it stops or refuses a connection (SQLSTATE): the server shutting down
# or crashed (57P01, 57P02), starting up (57P03), out of connection slots (53300); class 08 is
# every "connection exception". Other OperationalErrors (a serialization failure, a cancelled
# statement) come from a server that answered.
POSTGRES_GONE = frozenset({"57P01", "57P02", "57P03", "53300"})
# SQLite is a file: busy past the busy timeout, or the file could not be opened.
SQLITE_GONE = ("database is locked", "unable to open database file")


def is_unreachable(exc: BaseException) -> bool:
    """True when `exc` (or what caused it) is a database driver saying the database did not
    answer: the server is down or restarting, the connection dropped, or it refused a new one.
    Nothing it was asked to do was done; the same request may work later. A ConnectionError of
    anything else (a device, the chat) is not the database's, even inside a session block."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if _lost_database(current):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


def _lost_database(exc: BaseException) -> bool:
    """SQLAlchemy's disconnect verdict, or the driver's own error (what SQLAlchemy wraps, and
    what the PostgreSQL worker meets speaking to psycopg directly)."""
    if isinstance(exc, DisconnectionError):
        return True
    if isinstance(exc, DBAPIError) and exc.connection_invalidated:
        return True
    if isinstance(exc, psycopg.InterfaceError):  # the connection is closed
        return True
    if isinstance(exc, psycopg.OperationalError):  # no SQLSTATE: the client lost the server
        return exc.sqlstate is None or exc.sqlstate[:2] == "08" or exc.sqlstate in POSTGRES_GONE
    if isinstance(exc, sqlite3.OperationalError):
        return str(exc).startswith(SQLITE_GONE)
    return False


def describe_error(url: URL, exc: SQLAlchemyError) -> StorageError:
    """One line a user can act on, for a database error that stops labbot from using `url`."""
    detail = str(exc.orig if isinstance(exc, DBAPIError) else exc).strip()
    reason = detail.splitlines()[0] if detail else type(exc).__name__
    lowered = detail.lower()
    if url.get_backend_name() == "sqlite":
        where = url.database or ":memory:"
        if "not a database" in lowered:
            return StorageError(
                f"{where!r} is not a SQLite database — point the URL at another file"
            )
        if "unable to open" in lowered:
            return StorageError(
                f"cannot open the SQLite database {where!r}: check the path and permissions"
            )
        return StorageError(f"SQLite database {where!r} failed: {reason}")
    where = f"{url.host or 'localhost'}:{url.port or 5432}"
    if "connection refused" in lowered:
        return StorageError(
            f"cannot reach PostgreSQL at {where}: connection refused — is the server running?"
        )
    if "password authentication failed" in lowered or "no password supplied" in lowered:
        return StorageError(
            f"PostgreSQL at {where} refused the login of {url.username!r}: check user and password"
        )
    if "does not exist" in lowered and "database" in lowered:
        return StorageError(
            f"PostgreSQL at {where} has no database {url.database!r} — create it "
            f"(createdb {url.database}) or fix the URL"
        )
    if "name or service not known" in lowered or "nodename nor servname" in lowered:
        return StorageError(f"cannot resolve the PostgreSQL host {url.host!r}: fix the URL")
    if (isinstance(exc, DBAPIError) and exc.connection_invalidated) or "timeout" in lowered:
        return StorageError(f"cannot reach PostgreSQL at {where}: {reason}")
    return StorageError(f"PostgreSQL at {where} failed: {reason}")
