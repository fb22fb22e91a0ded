"""Caps on open changes hold under concurrency: 50 requests at once from one person, from 50
people in one channel, and from 50 channels open exactly the caps, on SQLite and PostgreSQL
(the real service, graph and saver; a recording gateway stands in for the lab)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from adapters.chat import Request, ThreadRef
from bot.runtime.wiring import Runtime, open_runtime
from bot.settings import load_settings
from tests.bot.chat import RecordingAdapter, person
from tests.security.tally import attempt
from tests.support.postgres import SHARED_STORAGE_KEY
from tests.workflow.gateways import two_router_lab

BURST = 50
CAPS = {"max_open_per_user": 5, "max_open_per_channel": 20, "max_open": 30}
NTP = "apply ntp to R1 servers=10.9.9.9"


@asynccontextmanager
async def capped_bot(tmp_path: Path, url: str, chat: RecordingAdapter) -> AsyncIterator[Runtime]:
    keys = {"audit_key": "caps-test-key", "storage_key": SHARED_STORAGE_KEY}
    settings = load_settings(data_dir=tmp_path, database_url=url, **keys, **CAPS)
    async with open_runtime(settings, chat, gateway=two_router_lab()) as runtime:
        yield runtime


async def burst(bot: Runtime, requests: list[Request]) -> int:
    """Send all requests at once; how many changes storage holds afterwards."""
    await asyncio.gather(*(bot.service.handle(request) for request in requests))
    return len([e for e in await bot.audit.entries() if e.kind == "change"])


def request(who: str, channel: str, n: int) -> Request:
    return Request(ThreadRef("console", channel, f"t{n}"), person(who), NTP)


async def test_one_person_at_once_opens_exactly_their_cap(
    tmp_path: Path, database_url: str
) -> None:
    chat = RecordingAdapter()
    async with capped_bot(tmp_path, database_url, chat) as bot:
        opened = await burst(bot, [request("alice", "C1", n) for n in range(BURST)])
    refused = [t for t in chat.said_to("console:alice") if "LABBOT_MAX_OPEN_PER_USER" in t]
    attempt("door: concurrent requests past the caps", opened == 5)
    assert opened == CAPS["max_open_per_user"]
    assert len(refused) == BURST - opened


async def test_many_people_in_one_channel_open_exactly_its_cap(
    tmp_path: Path, database_url: str
) -> None:
    chat = RecordingAdapter()
    async with capped_bot(tmp_path, database_url, chat) as bot:
        opened = await burst(bot, [request(f"user{n}", "C1", n) for n in range(BURST)])
    refused = [t for n in range(BURST) for t in chat.said_to(f"console:user{n}")]
    attempt("door: concurrent requests past the caps", opened == 20)
    assert opened == CAPS["max_open_per_channel"]
    assert len([t for t in refused if "LABBOT_MAX_OPEN_PER_CHANNEL" in t]) == BURST - opened


async def test_many_people_in_many_channels_open_exactly_the_overall_cap(
    tmp_path: Path, database_url: str
) -> None:
    chat = RecordingAdapter()
    async with capped_bot(tmp_path, database_url, chat) as bot:
        opened = await burst(bot, [request(f"user{n}", f"C{n}", n) for n in range(BURST)])
    refused = [t for n in range(BURST) for t in chat.said_to(f"console:user{n}")]
    attempt("door: concurrent requests past the caps", opened == 30)
    assert opened == CAPS["max_open"]
    assert len([t for t in refused if "LABBOT_MAX_OPEN)" in t]) == BURST - opened
