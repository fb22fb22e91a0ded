"""The push progress message with a slow chat: a hundred devices make a few edits, not two
hundred in a row; the last one shows every device finished, and a stop sees the state at once.

The bot's reporter fed through LoopBridge from a device thread, as a push feeds it, into a chat
whose every post and edit takes 0.2 s (Slack at its rate limit)."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from adapters.chat import CodeBlock, Message, ThreadRef
from bot.decisions.reporter import ChangeReporter
from storage.audit_store import AuditStore
from storage.db import make_engine
from tests.bot.chat import THREAD, RecordingAdapter
from tests.support.sealing import SEALING
from workflow.devices.runner import LoopBridge

DEVICES = [f"R{n}" for n in range(1, 101)]
EDIT_SECONDS = 0.2


class SlowChat(RecordingAdapter):
    async def post(self, thread: ThreadRef, message: Message) -> str:
        await asyncio.sleep(EDIT_SECONDS)
        return await super().post(thread, message)

    async def update(self, thread: ThreadRef, message_id: str, message: Message) -> None:
        await asyncio.sleep(EDIT_SECONDS)
        await super().update(thread, message_id, message)


def push_events(bridge: LoopBridge) -> None:
    """What a push's device threads report: each device started, then done."""
    for device in DEVICES:
        bridge.progress(device, "started")
        bridge.progress(device, "done")


async def test_a_hundred_devices_make_a_few_edits_the_last_showing_all(tmp_path: Path) -> None:
    chat = SlowChat()
    audit = AuditStore(make_engine(f"sqlite+aiosqlite:///{tmp_path / 'audit.db'}"), chain=SEALING)
    reporter = ChangeReporter(adapter=chat, audit=audit)
    reporter.pushes.begin("chg-1", THREAD, {device: ["x"] for device in DEVICES})
    loop = asyncio.get_running_loop()
    bridge = LoopBridge(loop, reporter.progress(THREAD, "chg-1"), len(DEVICES), str)
    worker = threading.Thread(target=push_events, args=(bridge,))
    worker.start()
    await asyncio.to_thread(worker.join)
    await asyncio.sleep(0)  # the loop hands on what the thread scheduled
    assert set(reporter.pushes.runs["chg-1"].stages.values()) == {"done"}  # a stop sees it now
    last_event = loop.time()
    await bridge.drain()
    waited = loop.time() - last_event
    assert len(chat.posts) == 1 and len(chat.updates) <= 4, (len(chat.posts), len(chat.updates))
    last = chat.updates[-1][1] if chat.updates else chat.posts[0][2]
    [rows] = [block.text.splitlines() for block in last.blocks if isinstance(block, CodeBlock)]
    assert "100/100 device(s) finished" in last.text, last.text
    assert rows == [f"✓ {device}" for device in DEVICES], rows
    assert waited < 5, waited  # one edit per event, in a row: 200 × 0.2 s = 40 s
