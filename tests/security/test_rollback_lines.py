"""What a rollback writes on an IOS router (simulated), which may read 7 bits per character: a
description the router printed with non-ASCII letters in it (set outside labbot) is restored
as printed, while a line no device printed keeps being refused for the same letters (`Ü` is C3
9C: a device reading 7 bits sees a control character in its bytes). Replayed through the
decision service (real graph, SQLite, simulated lab)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.cli.demo import DEMO_CREDENTIALS
from labsim import Lab, demo_topology
from labsim.cli import CliSession
from tests.bot.chat import ask
from tests.security.service import TeamChat, place, press, team_bot
from tests.security.tally import attempt

HERE = place("C-lab")
UNDO = place("C-lab", "t2")
PRINTED = " description Überlink zu SW1"  # set at the console, shown so by the router


@pytest.fixture
async def lab() -> AsyncIterator[Lab]:
    async with Lab.start(demo_topology(1), **DEMO_CREDENTIALS) as lab:
        console = CliSession(lab.device("R1"), privileged=True, secret="")
        for line in ["configure terminal", "interface GigabitEthernet0/0", PRINTED, "end"]:
            console.feed_line(line)
        yield lab


async def test_a_rollback_restores_a_description_the_router_printed_in_8_bits(
    tmp_path: Path, lab: Lab
) -> None:
    chat = TeamChat()
    async with team_bot(tmp_path, lab, chat) as bot:
        await bot.service.handle(ask("describe interfaces on R1", "alice", HERE))
        await bot.service.handle(press(chat, HERE, "bob"))
        await bot.service.handle(press(chat, HERE, "bob"))
        assert " description to SW1 Ethernet1" in lab.device("R1").running_config()
        change = await bot.audit.latest_change_for_thread(HERE.key)
        assert change is not None
        await bot.service.handle(ask(f"rollback {change.change_id}", "alice", UNDO))
        await bot.service.handle(press(chat, UNDO, "bob"))
        await bot.service.handle(press(chat, UNDO, "bob"))
    restored = PRINTED in lab.device("R1").running_config().splitlines()
    attempt("rollback: a description the router printed, restored", restored)
    assert restored, chat.texts()[-3:]


async def test_a_change_rolled_back_already_is_not_rolled_back_twice(
    tmp_path: Path, lab: Lab
) -> None:
    chat = TeamChat()
    again = place("C-lab", "t3")
    async with team_bot(tmp_path, lab, chat) as bot:
        await bot.service.handle(ask("describe interfaces on R1", "alice", HERE))
        await bot.service.handle(press(chat, HERE, "bob"))
        await bot.service.handle(press(chat, HERE, "bob"))
        change = await bot.audit.latest_change_for_thread(HERE.key)
        assert change is not None
        await bot.service.handle(ask(f"rollback {change.change_id}", "alice", UNDO))
        await bot.service.handle(press(chat, UNDO, "bob"))
        await bot.service.handle(press(chat, UNDO, "bob"))
        restored = lab.device("R1").running_config()
        await bot.service.handle(ask(f"rollback {change.change_id}", "carol", again))
        refused = chat.texts()[-1]
    assert PRINTED in restored.splitlines()
    assert f"{change.change_id} was rolled back already (chg-" in refused, refused
    assert lab.device("R1").running_config() == restored
