"""Ordered dispatch: the work under one key (a thread, a room) runs one at a time, in arrival order.

Different keys run side by side. A busy key has one queue and one worker task, both dropped when
the queue runs dry, so there is no lock to hold and nothing grows with the threads ever seen. A
failing item is logged and the queue goes on with the next one.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Awaitable, Callable

log = logging.getLogger(__name__)

Work = Callable[[], Awaitable[None]]
QUEUED_PER_KEY = 200  # items waiting under one key; more is a flood, dropped with a warning


class OrderedQueues:
    def __init__(self, what: str, limit: int = QUEUED_PER_KEY) -> None:
        self._what = what  # what the keys name, for the log ("thread", "room")
        self._limit = limit
        self._queues: dict[str, deque[Work]] = {}
        self._workers: set[asyncio.Task[None]] = set()

    @property
    def busy(self) -> frozenset[str]:
        """The keys with work queued or running."""
        return frozenset(self._queues)

    def submit(self, key: str, work: Work) -> None:
        """Run `work` after everything submitted under `key` before it."""
        queue = self._queues.get(key)
        if queue is None:
            self._queues[key] = deque([work])
            worker = asyncio.create_task(self._drain(key))
            self._workers.add(worker)
            worker.add_done_callback(self._workers.discard)
        elif len(queue) < self._limit:
            queue.append(work)
        else:
            log.warning("%s %s has %d events waiting; dropping one", self._what, key, len(queue))

    async def close(self) -> None:
        """Cancel what runs and drop what waits."""
        workers = list(self._workers)
        for worker in workers:
            worker.cancel()
        for worker in workers:
            with contextlib.suppress(asyncio.CancelledError):
                await worker

    async def _drain(self, key: str) -> None:
        queue = self._queues[key]
        try:
            while queue:  # a submit during the await below lands in this same queue
                work = queue.popleft()
                try:
                    await work()
                except Exception:
                    log.exception("handling an event of %s %s failed", self._what, key)
        finally:
            del self._queues[key]
