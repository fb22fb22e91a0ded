"""LoopBridge: device threads' progress reaches the sink on the loop in order, its state at
once; the chat edits it returns run one at a time, a newer one replacing the one waiting."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable

from workflow.devices.runner import LoopBridge
from workflow.model import PushProgress

DEVICES = [f"R{n}" for n in range(1, 9)]


class SlowChat:
    """A progress sink like the bot's: the state updated when called, an edit that shows the
    latest state when it starts and takes `seconds`."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.state: dict[str, str] = {}
        self.told: list[str] = []  # the events, as the sink was handed them
        self.edits: list[dict[str, str]] = []
        self.running = self.most_running = 0

    def on_progress(self, event: PushProgress) -> Awaitable[None]:
        self.told.append(event.device)
        self.state[event.device] = event.stage
        return self.edit()

    async def edit(self) -> None:
        self.running += 1
        self.most_running = max(self.most_running, self.running)
        shown = dict(self.state)
        await asyncio.sleep(self.seconds)
        self.edits.append(shown)
        self.running -= 1


async def from_a_device_thread(bridge: LoopBridge, devices: list[str]) -> None:
    worker = threading.Thread(target=lambda: [bridge.progress(d, "done") for d in devices])
    worker.start()
    await asyncio.to_thread(worker.join)
    await asyncio.sleep(0)  # the loop runs what the thread scheduled


async def test_edits_never_overlap_and_the_last_shows_every_device() -> None:
    """The chat posts the progress message at the first edit and edits it at the next: a
    slow first edit must not let a second one start (it would post a second message)."""
    chat = SlowChat(0.05)
    bridge = LoopBridge(asyncio.get_running_loop(), chat.on_progress, len(DEVICES), str)
    await from_a_device_thread(bridge, DEVICES)
    assert chat.told == DEVICES  # every event, in order, before any edit ends
    await bridge.drain()
    assert chat.most_running == 1
    assert chat.edits[-1] == dict.fromkeys(DEVICES, "done")
    assert len(chat.edits) < len(DEVICES)


async def test_a_hundred_events_with_a_slow_chat_make_a_few_edits() -> None:
    """Before, every event was one edit in a row and the push waited for all: 100 devices at
    0.2 s an edit held it 20 s. Now the edit running and the latest one, whatever the count."""
    devices = [f"R{n}" for n in range(1, 101)]
    chat = SlowChat(0.2)
    bridge = LoopBridge(asyncio.get_running_loop(), chat.on_progress, len(devices), str)
    await from_a_device_thread(bridge, devices)
    loop = asyncio.get_running_loop()
    last_event = loop.time()
    await bridge.drain()
    assert loop.time() - last_event < 5  # at most two 0.2 s edits; one edit each took 20 s
    assert len(chat.edits) <= 5, len(chat.edits)
    assert chat.edits[-1] == dict.fromkeys(devices, "done")
    assert chat.most_running == 1


async def test_a_failing_edit_does_not_stop_the_next_ones() -> None:
    shown: list[str] = []

    async def fail_first(device: str) -> None:
        if device == "R1":
            raise RuntimeError("the chat is down")
        shown.append(device)

    def show(event: PushProgress) -> Awaitable[None]:
        return fail_first(event.device)

    bridge = LoopBridge(asyncio.get_running_loop(), show, 3, str)
    for device in ("R1", "R2", "R3"):
        bridge.progress(device, "done")
    await asyncio.sleep(0)
    await bridge.drain()
    assert shown == ["R3"]  # R2's edit was replaced, waiting, by R3's
