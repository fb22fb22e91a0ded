"""Progress shown one chat edit at a time: a newer edit replaces the one waiting, never queues.

A progress sink updates its state when it is called and returns an awaitable that shows the
latest state (a chat edit). `ProgressEdits` runs at most one such edit and keeps at most one
waiting; a newer one replaces the one waiting (it would show the same state or an older one),
so a hundred device events make a handful of edits, the last one showing the final state.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

__all__ = ["ProgressEdits"]

log = logging.getLogger(__name__)

Event = TypeVar("Event")


class ProgressEdits:
    """One sink's edits: one running, one waiting; a failure is logged, never raised."""

    def __init__(self, what: str) -> None:
        self._what = what  # for the log: "push progress", "model progress"
        self._running: asyncio.Future[None] | None = None
        self._waiting: Awaitable[None] | None = None

    def tell(self, sink: Callable[[Event], Awaitable[None] | None], event: Event) -> None:
        """Hand `event` to `sink` now (its state is updated at once); its edit runs after the
        one running, unless a newer one replaces it first. Call on the loop's thread."""
        try:
            shown = sink(event)
        except Exception:  # a broken chat update must not break the push or the planning
            log.exception("%s failed", self._what)
            return
        if not inspect.isawaitable(shown):
            return
        if self._running is None:
            self._start(shown)
        else:
            _drop(self._waiting)
            self._waiting = shown

    async def drain(self) -> None:
        """Wait for the edit running and the one waiting (at most two), so none outlives the
        work whose progress they show."""
        while self._running is not None:
            await asyncio.wait((self._running,))

    def _start(self, shown: Awaitable[None]) -> None:
        self._running = running = asyncio.ensure_future(self._run(shown))
        running.add_done_callback(self._next)

    async def _run(self, shown: Awaitable[None]) -> None:
        try:
            await shown
        except Exception:
            log.exception("%s failed", self._what)

    def _next(self, done: asyncio.Future[None]) -> None:
        self._running = None
        waiting, self._waiting = self._waiting, None
        if waiting is None:
            return
        if done.cancelled():  # the loop is closing: show nothing more
            _drop(waiting)
        else:
            self._start(waiting)


def _drop(shown: Awaitable[Any] | None) -> None:
    """An edit replaced before it started: closed, so Python does not warn it never ran."""
    if inspect.iscoroutine(shown):
        shown.close()
    elif isinstance(shown, asyncio.Future):
        shown.cancel()
