"""One thread that runs a saver's work on a SQLite file, committing concurrent writes together.

aiosqlite hops to its thread for every cursor call (about four per statement); this worker hops
once per operation. Operations that queue up while it is busy run in one transaction, so eight
graph threads saving at once pay for one fsync, not eight (group commit). Every caller still
gets its answer only after its work is committed. If a batch fails, its operations run again one
by one, so only the one at fault sees the error.
"""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sqlalchemy import Connection, Engine

MAX_BATCH = 64
T = TypeVar("T")


@dataclass
class _Job:
    work: Callable[..., Any]
    args: tuple[Any, ...]
    loop: asyncio.AbstractEventLoop
    future: asyncio.Future[Any] = field(repr=False)


class SQLiteWorker:
    def __init__(self, engine: Engine, name: str = "sqlite-saver") -> None:
        self.engine = engine
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._closed = False
        self._thread = threading.Thread(target=self._serve, name=name, daemon=True)
        self._thread.start()

    async def run(self, work: Callable[..., T], *args: Any) -> T:
        """`work(connection, *args)` on the worker's thread, committed when this returns."""
        if self._closed:
            raise RuntimeError("the SQLite worker is closed: the saver was closed")
        loop = asyncio.get_running_loop()
        job = _Job(work, args, loop, loop.create_future())
        self._jobs.put(job)
        result: T = await job.future
        return result

    async def close(self) -> None:
        """Finish the queued work, then stop (and close the thread's connections)."""
        self._closed = True
        self._jobs.put(None)
        await asyncio.to_thread(self._thread.join)

    def _serve(self) -> None:
        try:
            while (job := self._jobs.get()) is not None:
                batch = [job]
                while len(batch) < MAX_BATCH:
                    try:
                        more = self._jobs.get_nowait()
                    except queue.Empty:
                        break
                    if more is None:
                        self._jobs.put(None)  # finish this batch, then stop
                        break
                    batch.append(more)
                self._run_batch(batch)
        finally:
            self.engine.dispose()

    def _run_batch(self, batch: list[_Job]) -> None:
        try:
            with self.engine.begin() as conn:
                results = [(job, _attempt(conn, job)) for job in batch]
                if any(isinstance(outcome, BaseException) for _, outcome in results):
                    raise _BatchFailed
        except Exception:
            results = [(job, self._alone(job)) for job in batch]
        for job, outcome in results:
            job.loop.call_soon_threadsafe(settle, job.future, outcome)

    def _alone(self, job: _Job) -> Any:
        try:
            with self.engine.begin() as conn:
                return job.work(conn, *job.args)
        except Exception as exc:
            return exc


class _BatchFailed(Exception):
    """One operation of a batch failed: roll the batch back and run each alone."""


def _attempt(conn: Connection, job: _Job) -> Any:
    try:
        return job.work(conn, *job.args)
    except Exception as exc:
        return exc


def settle(future: asyncio.Future[Any], outcome: Any) -> None:
    """Hand a waiting caller its outcome: a result, or the exception its work raised."""
    if future.cancelled():
        return
    if isinstance(outcome, BaseException):
        future.set_exception(outcome)
    else:
        future.set_result(outcome)
