"""The database stops while the bot runs (a real PostgreSQL of the test's own, stopped and
started again): the click is answered with one line, nothing is pushed, the bot keeps serving,
and the next click after the database is back works."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot import messages
from bot.cli.demo import DEMO_CREDENTIALS
from labsim import Lab, demo_topology
from storage.db import upgrade_database
from tests.bot.chat import RecordingAdapter, ask, click
from tests.bot.test_e2e_console import running_bot
from tests.support.postgres import own_postgres_cluster

pytestmark = pytest.mark.postgres


@pytest.fixture
async def lab() -> AsyncIterator[Lab]:
    async with Lab.start(demo_topology(2), **DEMO_CREDENTIALS) as lab:
        yield lab


async def test_a_click_while_the_database_is_down_pushes_nothing_and_the_next_works(
    tmp_path: Path, lab: Lab
) -> None:
    chat = RecordingAdapter()
    async with own_postgres_cluster() as cluster:
        await upgrade_database(cluster.url)
        async with running_bot(tmp_path, lab, chat, database_url=cluster.url) as bot:
            await bot.service.handle(ask("apply ntp to R1 servers=10.4.4.4", "alice"))
            await bot.service.handle(click(chat, "bob"))
            execute = click(chat, "bob")
            await cluster.stop()
            await bot.service.handle(execute)
            assert chat.texts()[-1] == messages.DATABASE_DOWN
            assert "ntp server 10.4.4.4" not in lab.device("R1").running_config()
            await cluster.resume()
            await bot.service.handle(execute)
            config = lab.device("R1").running_config()
            said = chat.texts()
    assert "ntp server 10.4.4.4" in config
    assert said.count(messages.DATABASE_DOWN) == 1
    assert any("pushed: ✓ 1 ✗ 0 of 1" in text for text in said), said
