"""LoopBridge: device threads' progress reaches an async callback on the loop, in order."""

from __future__ import annotations

import asyncio
import threading

from workflow.devices.runner import LoopBridge
from workflow.model import PushProgress

DEVICES = [f"R{n}" for n in range(1, 9)]


async def test_async_progress_callbacks_run_one_after_the_other_in_event_order() -> None:
    """The chat posts the progress message at the first event and edits it at the next: a
    slow first callback must not let the second one start (it would post a second message)."""
    shown: list[str] = []
    running = 0

    async def show(event: PushProgress) -> None:
        nonlocal running
        running += 1
        assert running == 1, "two progress callbacks ran at once"
        await asyncio.sleep(0.05 if event.device == "R1" else 0)  # the first post is slow
        shown.append(event.device)
        running -= 1

    bridge = LoopBridge(asyncio.get_running_loop(), show, len(DEVICES), str)
    worker = threading.Thread(target=lambda: [bridge.progress(d, "done") for d in DEVICES])
    worker.start()
    await asyncio.to_thread(worker.join)
    await asyncio.sleep(0)  # the loop runs what the thread scheduled
    await bridge.drain()
    assert shown == DEVICES


async def test_a_failing_progress_callback_does_not_stop_the_next_ones() -> None:
    shown: list[str] = []

    async def show(event: PushProgress) -> None:
        if event.device == "R1":
            raise RuntimeError("the chat is down")
        shown.append(event.device)

    bridge = LoopBridge(asyncio.get_running_loop(), show, 3, str)
    for device in ("R1", "R2", "R3"):
        bridge.progress(device, "done")
    await asyncio.sleep(0)
    await bridge.drain()
    assert shown == ["R2", "R3"]
