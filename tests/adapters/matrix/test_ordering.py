"""The order Matrix events reach the bot in, on a real Synapse: a thread's events one at a time in
the order people sent them, while other threads go on.

Why the order matters: of two decisions on one gate the first sent must be the first recorded
(first decision wins), and a request is handled before the replies to the gate it posts.
"""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest

from adapters.chat import ChatEvent, Decision, Request
from adapters.matrix.adapter import MatrixAdapter
from tests.adapters.matrix.chat_user import ChatUser
from tests.adapters.matrix.recorder import MakeBot, Recorder, recording
from tests.adapters.matrix.room_events import shared_room, thread_message

pytestmark = pytest.mark.synapse
REPLIES = 6


class SlowBot(Recorder):
    """Handles like the decision service does, slowly: the first decision of the busy thread
    holds it until the other thread's request was handled, then each decision takes less time
    than the one before, so any event overtaking an earlier one of its thread would show."""

    def __init__(self, adapter: MatrixAdapter) -> None:
        super().__init__(adapter)
        self.started: Counter[str] = Counter()  # events of a thread whose handling began
        self.running: Counter[str] = Counter()  # events of a thread being handled now
        self.most_at_once = 0
        self.other_thread_handled = asyncio.Event()

    async def __call__(self, event: ChatEvent) -> None:
        root = event.thread.thread
        self.started[root] += 1
        self.running[root] += 1
        self.most_at_once = max(self.most_at_once, self.running[root])
        try:
            await self._take_time(event, self.started[root])
            await super().__call__(event)  # posts the gate, records the event
        finally:
            self.running[root] -= 1

    async def _take_time(self, event: ChatEvent, nth: int) -> None:
        if isinstance(event, Request) and not event.text.startswith("gate"):
            self.other_thread_handled.set()
        elif isinstance(event, Decision):
            if nth == 2:  # the thread's first decision
                await asyncio.wait_for(self.other_thread_handled.wait(), 30)
            await asyncio.sleep(0.05 * (REPLIES + 6 - nth))


def what(event: ChatEvent) -> str:
    if isinstance(event, Request):
        return event.text
    assert isinstance(event, Decision)
    return event.feedback or event.choice


async def test_a_burst_in_one_thread_is_handled_in_order_while_another_thread_goes_on(
    make_bot: MakeBot, alice: ChatUser
) -> None:
    adapter = make_bot()
    bot = SlowBot(adapter)
    async with recording(adapter, bot):
        bot_id = adapter.bot.user_id
        room = await shared_room(alice, bot_id)
        asked = await alice.say(room, "!labbot gate")
        sent = ["gate"]
        gate = await alice.wait_for(thread_message(room, asked, bot_id))
        for n in range(1, REPLIES + 1):  # at once, each a reply to the gate
            await alice.say(room, f"modify: {n}", thread=asked, reply_to=gate["event_id"])
            sent.append(str(n))
        await alice.react(room, gate["event_id"], "✅")  # a decision found through its gate
        await alice.say(room, "modify: last", thread=asked)  # the thread fallback: the gate
        await alice.react(room, gate["event_id"], "❌")
        sent += ["approve", "last", "cancel"]
        other = await alice.say(room, "!labbot other")  # its own thread: not held up
        await bot.next_event(len(sent) + 1)
    handled = [(event.thread.thread, what(event)) for event in bot.events]
    assert [seen for root, seen in handled if root == asked] == sent
    assert handled.index((other, "other")) < handled.index((asked, "1"))
    assert bot.most_at_once == 1
