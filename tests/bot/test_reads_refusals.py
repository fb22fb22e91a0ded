"""What is refused before any device is asked, on the simulated lab: device commands typed as
messages (`do reload`, `copy run tftp://…`) are neither a read nor a change request; reads follow
the request policy (LABBOT_REQUESTERS, direct messages); concurrent reads cannot pass the
per-user rate limit. The devices' own record of what they were sent is the proof."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager, nullcontext
from pathlib import Path

import pytest
from pydantic import SecretStr

from tests.bot.chat import RecordingAdapter, ask
from tests.bot.test_reads import bot_on_lab
from tests.security.service import TeamChat, place
from tests.support.postgres import SHARED_AUDIT_KEY, SHARED_STORAGE_KEY, fresh_postgres_database

DEVICE_COMMANDS = [
    "do reload",
    "reload",
    "reload on R1 R2",
    "copy run tftp://10.0.0.9/r1.cfg",
    "copy running-config scp://admin:pw@10.0.0.9/r1.cfg",
    "copy run scp:",
    "write erase",
    "wr er",
    "delete flash:vlan.dat",
    "configure replace flash:old.cfg",
    "do show running-config on R1",
    "write memory on R1",
    "copy run start",
    "configure terminal",
    "clear ip bgp * on R1",
]


def seen(lab: object, names: tuple[str, ...] = ("R1", "R2")) -> dict[str, list[str]]:
    return {name: list(lab.device(name).commands_seen) for name in names}  # type: ignore[attr-defined]


async def test_device_commands_are_refused_and_nothing_is_planned_or_sent(tmp_path: Path) -> None:
    chat = RecordingAdapter()
    async with bot_on_lab(tmp_path, chat) as (lab, bot):
        before = seen(lab)
        for text in DEVICE_COMMANDS:
            await bot.service.handle(ask(text, "mallory"))
        after = seen(lab)
        entries = await bot.audit.entries(user="mallory")
        changes = await bot.audit.recent_change_records()
    refusals = chat.said_to("console:mallory")
    assert after == before  # not one line, not even a running-config read for a planner
    assert len(refusals) == len(DEVICE_COMMANDS), chat.texts()
    assert all("is a device command that" in text for text in refusals), refusals
    assert "reloads the device" in refusals[0]
    assert "exports the configuration or files to another host" in refusals[3]
    assert "erases the startup configuration" in refusals[6]
    assert "replaces the whole running configuration" in refusals[9]
    assert all("admin:pw" not in text for text in chat.texts())  # the URL is not echoed
    assert not any("Working on it" in text for text in chat.texts())  # no planning started
    assert changes == []
    assert [e.kind for e in entries] == ["refusal"] * len(DEVICE_COMMANDS)


async def test_a_change_asked_in_words_is_still_a_change(tmp_path: Path) -> None:
    chat = RecordingAdapter()
    async with bot_on_lab(tmp_path, chat) as (_, bot):
        await bot.service.handle(ask("configure ospf area 0 on all routers", "alice"))
    assert "Step 1 of 2" in chat.last_gate()[1].text, chat.texts()


async def test_reads_follow_the_requesters_list(tmp_path: Path) -> None:
    chat = RecordingAdapter()
    async with bot_on_lab(tmp_path, chat, requesters=["console:alice"]) as (lab, bot):
        before = seen(lab)
        await bot.service.handle(ask("show version on R1", "bob"))
        await bot.service.handle(ask("neighbours on R2", "bob"))  # a question is a read too
        untouched = seen(lab)
        await bot.service.handle(ask("show version on R1", "alice"))
        answered = chat.messages()[-1].text
        refusals = await bot.audit.entries(user="bob")
    assert untouched == before
    told = chat.said_to("console:bob")
    assert len(told) == 2 and all("LABBOT_REQUESTERS" in text for text in told), told
    assert [e.kind for e in refusals] == ["refusal", "refusal"]
    assert answered == "`show version` on R1: ✓ 1 ✗ 0", answered


async def test_a_read_in_a_direct_message_needs_a_rule(tmp_path: Path) -> None:
    chat = TeamChat(direct={"dm-bob"})
    async with bot_on_lab(tmp_path, chat) as (lab, bot):
        before = seen(lab)
        await bot.service.handle(ask("show version on R1", "bob", place("dm-bob")))
        untouched = seen(lab)
    told = chat.said_to("console:bob")
    assert untouched == before
    assert told and "direct messages need an explicit rule" in told[0], told


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
async def test_concurrent_reads_cannot_pass_the_rate_limit(
    tmp_path: Path, backend: str, request: pytest.FixtureRequest
) -> None:
    chat = RecordingAdapter()
    async with _database(backend, request) as database:
        settings: dict[str, object] = {"max_reads_per_minute": 3}
        if database is not None:  # replicas on one PostgreSQL key the audit chain alike
            settings |= {
                "database_url": database,
                "audit_key": SecretStr(SHARED_AUDIT_KEY),
                "storage_key": SecretStr(SHARED_STORAGE_KEY),
            }
        async with bot_on_lab(tmp_path, chat, **settings) as (lab, bot):
            asks = [bot.service.handle(ask("show clock on R1", "alice")) for _ in range(8)]
            await asyncio.gather(*asks)
            reads = [e for e in await bot.audit.entries(user="alice") if e.kind == "read"]
            sent = lab.device("R1").commands_seen.count("show clock")
    limited = [text for text in chat.said_to("console:alice") if "PER_MINUTE" in text]
    assert len(reads) == 3 and sent == 3, (len(reads), sent)
    assert len(limited) == 5, chat.texts()


def _database(
    backend: str, request: pytest.FixtureRequest
) -> AbstractAsyncContextManager[str | None]:
    if backend == "sqlite":
        return nullcontext(None)
    return _postgres(request.getfixturevalue("postgres_url"))


@asynccontextmanager
async def _postgres(url: str) -> AsyncIterator[str | None]:
    async with fresh_postgres_database(url) as database:
        yield database
