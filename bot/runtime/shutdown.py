"""Stopping `labbot serve` (SIGTERM from `docker stop` or Kubernetes, SIGINT): stop taking
requests, let what is running finish within LABBOT_SHUTDOWN_SECONDS, and record every push that
could not finish as interrupted, device by device — never a silently half-done push.

Pending gates need nothing: they live in the database and any replica (or this one, restarted)
decides them.
"""

from __future__ import annotations

import asyncio
import logging
import signal
from dataclasses import dataclass, field

from adapters.chat import ChatAdapter, ChatEvent, EventHandler, Message
from bot import messages
from bot.decisions.push_booking import PushesInFlight, push_row
from storage.audit_store import AuditStore
from storage.locks import DeviceLockStore

__all__ = ["Drain", "on_stop_signal", "record_cut_short"]

log = logging.getLogger(__name__)

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)
# What a device's last progress stage means for the audit when its push is cut short.
STATUS_AT_STOP = {"done": "success", "failed": "failed"}
INTERRUPTED = "interrupted"


async def record_cut_short(
    pushes: PushesInFlight, audit: AuditStore, locks: DeviceLockStore, adapter: ChatAdapter
) -> int:
    """Record every push still running as interrupted, device by device (a device that had
    finished keeps its result), release its devices' locks (the change is over: a new request
    may push to them at once, not only after LABBOT_DEVICE_LOCK_SECONDS), and say so in its
    thread with how to retry. Returns how many pushes."""
    for change_id, push in list(pushes.runs.items()):
        rows = [
            push_row(push.record(device), stopped=STATUS_AT_STOP.get(stage, INTERRUPTED))
            for device, stage in push.stages.items()
        ]
        await audit.record_pushes(change_id, rows)
        await audit.record_change_event(
            change_id=change_id, status=INTERRUPTED, detail=messages.INTERRUPTED_DETAIL
        )
        await locks.release(change_id, list(push.lines))
        stopped = [d for d, stage in push.stages.items() if stage not in STATUS_AT_STOP]
        text = messages.INTERRUPTED.format(change_id=change_id, devices=", ".join(stopped))
        try:
            await adapter.post(push.thread, Message(text, level="error"))
        except Exception:  # the audit has it; the chat may be what is going away
            log.exception("could not tell %s that %s was interrupted", push.thread.key, change_id)
        log.warning("%s: push interrupted by the stop (%s)", change_id, ", ".join(stopped))
    return len(pushes.runs)


@dataclass
class Drain:
    """Counts the events being handled, so a stop can wait for them."""

    active: int = 0
    _idle: asyncio.Event = field(default_factory=asyncio.Event)

    def wrap(self, handler: EventHandler) -> EventHandler:
        async def handle(event: ChatEvent) -> None:
            self.active += 1
            self._idle.clear()
            try:
                await handler(event)
            finally:
                self.active -= 1
                if not self.active:
                    self._idle.set()

        return handle

    async def wait(self, within: float) -> bool:
        """True when nothing is being handled any more, False when `within` ran out first."""
        if not self.active:
            return True
        try:
            await asyncio.wait_for(self._idle.wait(), within)
        except TimeoutError:
            return False
        return True


def on_stop_signal(stopping: asyncio.Event) -> None:
    """SIGTERM/SIGINT set `stopping` (labbot may be PID 1 in a container: without a handler the
    kernel ignores SIGTERM there and `docker stop` has to kill it)."""
    loop = asyncio.get_running_loop()
    for number in STOP_SIGNALS:
        loop.add_signal_handler(number, _stop, stopping, number)


def _stop(stopping: asyncio.Event, number: int) -> None:
    if not stopping.is_set():
        log.info("%s: stopping; running work may finish", signal.strsignal(number))
    stopping.set()
