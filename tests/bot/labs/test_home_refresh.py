"""The App Home with many labs is one home a person: when gates move in 30 labs at once, each
viewer's home is published again once or twice (one pass, and one more for what moved during it),
not once per lab — Slack's views.publish is rate-limited, and every pass reads every lab's open
gates."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any, cast

from adapters.chat import Actor, Home
from bot.runtime.lab_homes import home_in_labs
from bot.runtime.wiring import Runtime
from bot.views.home_board import HomeBoard

LABS = 30


class Publisher:
    def __init__(self) -> None:
        self.published: list[str] = []

    async def publish_home(self, user: str, home: Home) -> None:
        await asyncio.sleep(0.01)  # Slack's round trip
        self.published.append(user)


async def test_gates_moving_in_every_lab_at_once_republish_each_home_at_most_twice() -> None:
    publisher = Publisher()
    no = cast(Any, None)
    boards = [HomeBoard(publisher, "slack", no, no, no, no, no) for _ in range(LABS)]
    runtimes = {
        f"pod-{n}": cast(Runtime, SimpleNamespace(service=SimpleNamespace(home_board=board)))
        for n, board in enumerate(boards, 1)
    }
    people = [Actor(f"U{n}", f"student {n}") for n in range(5)]
    for actor in people:
        home_in_labs(runtimes, actor)

    async def composed(actor: Actor) -> Home:
        await asyncio.sleep(0)  # each lab's open gates read
        return Home(())

    for board in boards:
        board.compose = composed
    for board in boards:  # a gate opens in every lab at once
        board.refresh()
    await settled(boards)
    counts = {actor.id: publisher.published.count(actor.id) for actor in people}
    assert all(1 <= count <= 2 for count in counts.values()), counts

    boards[7].refresh()  # later, one lab's gate: one more pass
    await settled(boards)
    assert all(publisher.published.count(a.id) == counts[a.id] + 1 for a in people)


async def settled(boards: list[HomeBoard]) -> None:
    """Until no refresh runs (a generous deadline: the machine may be busy)."""
    running = {b.viewers._running for b in boards} - {None}
    for task in running:
        await asyncio.wait_for(asyncio.shield(task), 60)  # type: ignore[arg-type]
