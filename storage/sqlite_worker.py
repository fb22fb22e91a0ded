"""One thread that runs a saver's work on a SQLite file, committing concurrent writes together.

aiosqlite hops to its thread for every cursor call (about four per statement); this worker hops
once per operation. Operations that queue up while it is busy run in one transaction, so eight
graph threads saving at once pay for one fsync, not eight (group commit). Every caller still
gets its answer only after its work is committed. If a batch fails, its operations run again one
by one, so only the one at fault sees the error. The thread keeps its one connection for its
life (no pool checkout per batch), and hands a batch's answers to each waiting loop at once (one
wake-up of the loop per batch, not one per operation).
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
        conn: Connection | None = None
        try:
            while (job := self._jobs.get()) is not None:
                batch = self._batch_from(job)
                try:
                    conn = conn or self.engine.connect()
                except Exception as exc:  # the file cannot be opened: each caller is told why
                    _answer([(queued, exc) for queued in batch])
                    continue
                self._run_batch(conn, batch)
        finally:
            if conn is not None:
                conn.close()
            self.engine.dispose()

    def _batch_from(self, job: _Job) -> list[_Job]:
        """`job` and those queued behind it (MAX_BATCH at most)."""
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
        return batch

    def _run_batch(self, conn: Connection, batch: list[_Job]) -> None:
        try:
            with conn.begin():
                results = [(job, _attempt(conn, job)) for job in batch]
                if any(isinstance(outcome, BaseException) for _, outcome in results):
                    raise _BatchFailed
        except Exception:
            results = [(job, _alone(conn, job)) for job in batch]
        _answer(results)


def _answer(results: list[tuple[_Job, Any]]) -> None:
    """Each job's outcome to its caller, one wake-up per waiting loop."""
    answers: dict[asyncio.AbstractEventLoop, list[tuple[asyncio.Future[Any], Any]]] = {}
    for job, outcome in results:
        answers.setdefault(job.loop, []).append((job.future, outcome))
    for loop, settled in answers.items():
        loop.call_soon_threadsafe(settle_all, settled)


class _BatchFailed(Exception):
    """One operation of a batch failed: roll the batch back and run each alone."""


def _alone(conn: Connection, job: _Job) -> Any:
    try:
        with conn.begin():
            return job.work(conn, *job.args)
    except Exception as exc:
        return exc


def _attempt(conn: Connection, job: _Job) -> Any:
    try:
        return job.work(conn, *job.args)
    except Exception as exc:
        return exc


def settle_all(settled: list[tuple[asyncio.Future[Any], Any]]) -> None:
    for future, outcome in settled:
        settle(future, outcome)


def settle(future: asyncio.Future[Any], outcome: Any) -> None:
    """Hand a waiting caller its outcome: a result, or the exception its work raised."""
    if future.cancelled():
        return
    if isinstance(outcome, BaseException):
        future.set_exception(outcome)
    else:
        future.set_result(outcome)
