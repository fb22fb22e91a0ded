"""The per-channel read budget is one budget for every replica: two bots on one database, people
reading in one channel through both at once, post at most the budget together, the rest are
refused naming LABBOT_READ_CHANNEL_BUDGET, and another channel has its own. SQLite and
PostgreSQL (the real service, reads and saver; a recording gateway stands in for the lab)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path

from adapters.chat import Message, ThreadRef
from bot.runtime.wiring import Runtime, open_runtime
from bot.settings import load_settings
from bot.views.read import posted_chars
from tests.bot.chat import RecordingAdapter, ask
from tests.support.postgres import SHARED_AUDIT_KEY, SHARED_STORAGE_KEY
from tests.workflow.gateways import two_router_lab

READ = "show running-config on R1 R2"
READERS = 8


@asynccontextmanager
async def replica(
    data_dir: Path, url: str, chat: RecordingAdapter, budget: int
) -> AsyncIterator[Runtime]:
    keys = {"audit_key": SHARED_AUDIT_KEY, "storage_key": SHARED_STORAGE_KEY}
    settings = load_settings(
        data_dir=data_dir, database_url=url, read_channel_budget=budget, **keys
    )
    async with open_runtime(settings, chat, gateway=two_router_lab()) as runtime:
        yield runtime


def place(channel: str, thread: str = "t1") -> ThreadRef:
    return ThreadRef("console", channel, thread)


def answers_in(channel: str, *chats: RecordingAdapter) -> list[Message]:
    return [m for chat in chats for _, t, m in chat.posts if t.channel == channel and m.blocks]


async def one_answer(tmp_path: Path) -> int:
    """What one read's answer posts, on a database of its own."""
    chat = RecordingAdapter()
    url = f"sqlite+aiosqlite:///{tmp_path / 'measure.db'}"
    async with replica(tmp_path / "measure", url, chat, 1_000_000) as bot:
        await bot.service.handle(ask(READ, "alice", place("C0")))
    (answer,) = answers_in("C0", chat)
    return posted_chars(answer)


async def test_two_replicas_reading_in_one_channel_spend_one_budget(
    tmp_path: Path, database_url: str
) -> None:
    for data_dir in ("measure", "r0", "r1"):
        (tmp_path / data_dir).mkdir()
    one = await one_answer(tmp_path)
    budget = 3 * one + one // 2  # room for three answers, not four
    chats = (RecordingAdapter(), RecordingAdapter())
    async with AsyncExitStack() as stack:
        bots = [
            await stack.enter_async_context(replica(tmp_path / f"r{n}", database_url, chat, budget))
            for n, chat in enumerate(chats)
        ]
        readers = [f"user{n}" for n in range(READERS)]
        await asyncio.gather(
            *(
                bots[n % 2].service.handle(ask(READ, who, place("C1", who)))
                for n, who in enumerate(readers)
            )
        )
        await bots[1].service.handle(ask(READ, "zoe", place("C2")))
    in_c1 = answers_in("C1", *chats)
    refused = [t for chat in chats for who in readers for t in chat.said_to(f"console:{who}")]
    assert len(in_c1) == 3 and sum(map(posted_chars, in_c1)) <= budget
    assert len(refused) == READERS - 3, refused
    assert all("LABBOT_READ_CHANNEL_BUDGET" in t for t in refused), refused
    assert len(answers_in("C2", *chats)) == 1  # another channel has its own budget
