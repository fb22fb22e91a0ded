"""A large read is presented (parsed, masked, cut to a head and a file) in a worker process, off
the bot's event loop: while the presentation of Carol's read (past LABBOT_READ_INLINE_CHARS: a
head and a file) is held up in the worker, Bob's
Cancel click in another thread is answered and a peer's ping from another thread is
acknowledged, and Carol's answer comes once the worker goes on. On the simulated lab over telnet
with the real worker pool; were the read presented on the loop, the loop would be stuck in it
until the hold runs out, and the click would be answered only after the read."""

from __future__ import annotations

import asyncio
import ipaddress
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

from adapters.chat import Request, ThreadRef
from bot.commands.reads import Offload, ReadCommand
from bot.runtime.wiring import Runtime
from labsim import Topology
from labsim.topology import InterfaceSpec, demo_topology
from tests.bot.chat import RecordingAdapter, click, person
from tests.bot.test_reads import bot_on_lab

T = TypeVar("T")
HOLD_SECONDS = 120.0  # the worker's hold ends by itself after this, so a failure cannot hang
# two workers: one holds the read, the other is free for the rest; a CPU cap generous enough for
# a busy host (the first call also starts the workers); R1's config is past the inline size
SETTINGS = {"render_workers": 2, "render_cpu_seconds": 30.0, "read_inline_chars": 1_000}
GATE = ThreadRef("console", "changes", "t1")
READING = ThreadRef("console", "reads", "t1")


def long_config_lab() -> Topology:
    """The demo's R1 and R2, R1 with loopbacks enough that its running config goes as a file."""
    r1, r2 = demo_topology(2, switch=False).devices
    loopbacks = tuple(
        InterfaceSpec(f"Loopback{n}", ipaddress.IPv4Interface(f"10.1.{n}.1/32"), f"circuit {n}")
        for n in range(1, 60)
    )
    longer = replace(r1, interfaces=r1.interfaces + loopbacks)
    return replace(demo_topology(2, switch=False), devices=(longer, r2))


def held(started: Path, release: Path, func: Callable[..., T], *args: Any) -> T:
    """In the worker: say the presentation started, wait until `release` exists, present."""
    started.touch()
    deadline = time.monotonic() + HOLD_SECONDS
    while not release.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    return func(*args)


def hold_presenting(bot: Runtime, started: Path, release: Path) -> None:
    """The bot's read command presents through `held` (in the same worker pool)."""
    commands = bot.service.requests.commands
    assert commands is not None
    reads = commands.handlers["show"]
    assert isinstance(reads, ReadCommand)
    offload: Offload = reads.offload

    async def holding(func: Callable[..., Any], *args: Any) -> Any:
        return await offload(held, started, release, func, *args)

    holding_reads = replace(reads, offload=holding)
    for verb, handler in list(commands.handlers.items()):
        if handler is reads:
            commands.handlers[verb] = holding_reads


def appears(path: Path) -> bool:
    """Whether `path` exists within the hold (polled: it is made in another process)."""
    deadline = time.monotonic() + HOLD_SECONDS
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    return path.exists()


async def nothing() -> None:
    """What a peer's ping asks of the loop."""


async def test_a_click_elsewhere_is_answered_while_a_large_read_is_presented(
    tmp_path: Path,
) -> None:
    chat = RecordingAdapter()
    started, release = tmp_path / "presenting", tmp_path / "release"
    async with bot_on_lab(tmp_path, chat, long_config_lab(), **SETTINGS) as (_, bot):
        await bot.service.handle(Request(GATE, person("alice"), "apply ospf to R2"))
        gates = RecordingAdapter(posts=[p for p in chat.posts if p[1] == GATE])
        cancel = click(gates, "bob", "cancel", thread=GATE)
        hold_presenting(bot, started, release)
        read = Request(READING, person("carol"), "show running-config on R1")
        reading = asyncio.create_task(bot.service.handle(read))
        # the device answered; its output is in the worker
        assert await asyncio.to_thread(appears, started)
        loop = asyncio.get_running_loop()
        pinged = asyncio.run_coroutine_threadsafe(nothing(), loop)
        await asyncio.to_thread(pinged.result, 10)  # a peer on its own thread is acknowledged
        await bot.service.handle(cancel)
        answered_while_presenting = not reading.done()
        release.touch()
        await reading
    cancelled = [m.text for _, t, m in chat.posts if t == GATE]
    assert any("cancel" in text.lower() for text in cancelled[1:]), cancelled
    assert answered_while_presenting
    (answer,) = [m for _, t, m in chat.posts if t == READING]
    (file,) = answer.files  # presented in full once the worker went on: its head and a file
    assert file.name == "R1-show-running-config.txt"
    assert "the whole output is in the file" in answer.blocks[0].text
