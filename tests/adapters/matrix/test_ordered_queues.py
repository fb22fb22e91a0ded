"""`OrderedQueues`, the Matrix adapter's per-thread ordering, on its own: order within a key,
keys side by side, failures contained, idle keys forgotten, floods bounded."""

from __future__ import annotations

import asyncio
import logging

import pytest

from adapters.matrix.ordering import OrderedQueues, Work


def slow(done: list[str], name: str, seconds: float = 0) -> Work:
    async def work() -> None:
        await asyncio.sleep(seconds)
        done.append(name)

    return work


async def drained(queues: OrderedQueues, *keys: str) -> None:
    """Wait until everything submitted under `keys` so far has run."""
    marks = [asyncio.Event() for _ in keys]
    for key, mark in zip(keys, marks, strict=True):

        async def finish(mark: asyncio.Event = mark) -> None:
            mark.set()

        queues.submit(key, finish)
    async with asyncio.timeout(5):
        for mark in marks:
            await mark.wait()
    await asyncio.sleep(0)  # the workers' last step: forget their keys


async def test_one_key_runs_in_order_while_another_key_goes_on() -> None:
    queues, done = OrderedQueues("thread"), list[str]()
    for n, seconds in enumerate((0.2, 0.1, 0.0)):  # each quicker than the one before
        queues.submit("a", slow(done, f"a{n}", seconds))
    queues.submit("b", slow(done, "b0", 0.05))
    await drained(queues, "a", "b")
    assert done == ["b0", "a0", "a1", "a2"]


async def test_a_failure_is_logged_the_next_item_runs_and_idle_keys_are_dropped(
    caplog: pytest.LogCaptureFixture,
) -> None:
    queues, done = OrderedQueues("thread"), list[str]()

    async def broken() -> None:
        raise RuntimeError("boom")

    queues.submit("a", broken)
    queues.submit("a", slow(done, "after"))
    assert queues.busy == {"a"}
    await drained(queues, "a")
    assert done == ["after"]
    assert "handling an event of thread a failed" in caplog.text
    assert not queues.busy


async def test_a_flood_under_one_key_is_bounded_and_close_stops_the_rest(
    caplog: pytest.LogCaptureFixture,
) -> None:
    queues, done = OrderedQueues("thread", limit=3), list[str]()
    started = asyncio.Event()

    async def hold() -> None:
        started.set()
        await asyncio.sleep(60)

    queues.submit("a", hold)
    await started.wait()
    with caplog.at_level(logging.WARNING):
        for n in range(5):
            queues.submit("a", slow(done, str(n)))
    await queues.close()
    assert caplog.text.count("dropping one") == 2  # 3 waiting is the limit
    assert done == [] and not queues.busy
