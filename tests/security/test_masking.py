"""Show exactly what is approved: a secret value is masked by its hash and the words around it
stay; what is pushed is the shown line with the real value (same hash). Replayed through the
decision service (real graph, SQLite, simulated lab)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from adapters.chat import Message
from bot.demo import DEMO_CREDENTIALS
from bot.redact import masked
from labsim import Lab, demo_topology
from tests.bot.chat import ask
from tests.security.service import TeamChat, place, press, team_bot
from tests.security.tally import attempt

HERE = place("C-lab")


@pytest.fixture
async def lab() -> AsyncIterator[Lab]:
    async with Lab.start(demo_topology(2), **DEMO_CREDENTIALS) as lab:
        yield lab


def shown(message: Message) -> str:
    return "\n".join([message.text, *(b.text for b in message.blocks)])


@pytest.mark.parametrize("community", ["secret", "password", "RW", "Lab-Comm-7741"])
async def test_a_secret_value_is_masked_and_the_words_around_it_are_shown(
    tmp_path: Path, lab: Lab, community: str
) -> None:
    chat = TeamChat()
    async with team_bot(tmp_path, lab, chat) as bot:
        await bot.service.handle(
            ask(f"apply snmp to R1 community={community} read_only=false", "alice", HERE)
        )
        await bot.service.handle(press(chat, HERE, "bob"))
        found = chat.gate_in(HERE)
        assert found is not None
        preview = shown(found[1])
        await bot.service.handle(press(chat, HERE, "bob"))
    line = f"snmp-server community {masked(community)} RW"
    exact = line in preview and f"community {community} " not in preview
    attempt("masking: a secret value hides the words around it", exact)
    assert exact, preview
    # pushed: the shown line with the value whose hash was shown
    assert f"snmp-server community {community} RW" in lab.device("R1").running_config()


async def test_a_rollback_shows_no_secret_in_its_lines_or_parameters(
    tmp_path: Path, lab: Lab
) -> None:
    chat = TeamChat()
    new = "New-Comm-5678"
    async with team_bot(tmp_path, lab, chat) as bot:
        await bot.service.handle(ask(f"apply snmp to R1 community={new}", "alice", HERE))
        await bot.service.handle(press(chat, HERE, "bob"))
        await bot.service.handle(press(chat, HERE, "bob"))
        change = await bot.audit.latest_change_for_thread(HERE.key)
        assert change is not None
        undo = place("C-lab", "t2")
        await bot.service.handle(ask(f"rollback {change.change_id}", "alice", undo))
        template = chat.gate_in(undo)
        assert template is not None
        await bot.service.handle(press(chat, undo, "bob"))
        params = chat.gate_in(undo)
        assert params is not None and params != template
        texts = shown(template[1]) + shown(params[1])
    leaked = new in texts
    attempt("masking: rollback parameter block", not leaked)
    assert not leaked, texts
    assert masked(new) in texts
