"""What `/healthz` and `labbot health` answer, and how `labbot serve` waits for its database at
start.

A replica is healthy when it can reach its database: that is where every gate, decision and lock
lives, so a replica without it can only answer "try again". Load balancers probe every few
seconds per replica; one real check per `ttl` seconds answers them all.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable

from base.errors import StorageError
from bot import messages
from bot.records.place import database_place, sqlite_path
from bot.settings import Settings
from storage.db import check_database

__all__ = ["health_problem", "wait_for_database"]

log = logging.getLogger(__name__)

HEALTH_TTL_SECONDS = 2.0
HEALTH_TIMEOUT_SECONDS = 3.0  # under a load balancer's usual probe timeout (5 s)
FIRST_RETRY_SECONDS = 0.5
LONGEST_RETRY_SECONDS = 8.0

Check = Callable[[str], Awaitable[object]]


class DatabaseHealth:
    """`await health.problem()`: None when the database answers, else why not (one line).

    Runs on the caller's event loop (the HTTP server's own), opening a connection per check, so
    a busy bot loop never makes a healthy replica look dead.
    """

    def __init__(
        self,
        database_url: str,
        *,
        ttl: float = HEALTH_TTL_SECONDS,
        timeout: float = HEALTH_TIMEOUT_SECONDS,
        check: Check = check_database,
    ) -> None:
        self.database_url = database_url
        self.ttl, self.timeout, self._check = ttl, timeout, check
        self._checked_at = -float("inf")
        self._problem: str | None = None
        self._lock: asyncio.Lock | None = None

    async def problem(self) -> str | None:
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:  # concurrent probes share one check
            if time.monotonic() - self._checked_at >= self.ttl:
                self._problem = await self._probe()
                self._checked_at = time.monotonic()
            return self._problem

    async def _probe(self) -> str | None:
        try:
            await asyncio.wait_for(self._check(self.database_url), self.timeout)
        except StorageError as exc:
            return f"database: {exc}"
        except TimeoutError:
            return f"database: no answer within {self.timeout:g} s"
        return None


async def health_problem(settings: Settings) -> str | None:
    """What `labbot health` says: /healthz's check, for a process that serves no HTTP (Socket
    Mode, Matrix), run beside it in its container; an embedded database that is not there yet is
    a problem, never created here."""
    path = sqlite_path(settings.database_url)
    if path is not None and not path.is_file():
        data_dir = settings.data_dir.resolve()
        return messages.NO_DATABASE.format(where=database_place(settings), data_dir=data_dir)
    return await DatabaseHealth(settings.database_url).problem()


async def wait_for_database(url: str, *, within: float, check: Check = check_database) -> None:
    """Return once the database answers; retry with backoff for `within` seconds (PostgreSQL may
    still be starting beside labbot in compose or Kubernetes), then raise one StorageError line.

    The embedded SQLite file is opened, not reached: its errors do not go away by waiting.
    """
    if url.startswith("sqlite"):
        return
    deadline = time.monotonic() + within
    pause, attempts = FIRST_RETRY_SECONDS, 0
    while True:
        attempts += 1
        try:
            await check(url)
            return
        except StorageError as exc:
            left = deadline - time.monotonic()
            if left <= 0:
                raise StorageError(
                    f"{exc} (gave up after {attempts} attempt(s) in {within:g} s; "
                    "LABBOT_DB_WAIT_SECONDS sets how long to wait)"
                ) from None
            pause = min(pause, left)
            log.warning("database not reachable yet: %s; retrying in %.1f s", exc, pause)
            await asyncio.sleep(pause)
            pause = min(pause * 2, LONGEST_RETRY_SECONDS)
