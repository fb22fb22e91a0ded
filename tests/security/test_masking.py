"""Show exactly what is approved: a secret value is masked by its hash and the words around it
stay; what is pushed is the shown line with the real value (same hash). Replayed through the
decision service (real graph, SQLite, simulated lab)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from adapters.chat import Message, ThreadRef
from bot.audit.table import entry_summary
from bot.cli.demo import DEMO_CREDENTIALS
from labsim import Lab, demo_topology
from tests.bot.chat import ask, click
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
        await bot.service.handle(ask(f"apply snmp to R1 community={community}", "alice", HERE))
        await bot.service.handle(press(chat, HERE, "bob"))
        found = chat.gate_in(HERE)
        assert found is not None
        preview = shown(found[1])
        await bot.service.handle(press(chat, HERE, "bob"))
    line = f"snmp-server community {bot.service.reporter.mask.token(community)} RO"
    exact = line in preview and f"community {community} " not in preview
    attempt("masking: a secret value hides the words around it", exact)
    assert exact, preview
    # pushed: the shown line with the value whose hash was shown
    assert f"snmp-server community {community} RO" in lab.device("R1").running_config()


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
    assert bot.service.reporter.mask.token(new) in texts


def everything_said(chat: TeamChat, thread: ThreadRef) -> str:
    """All a person in `thread` can read: texts, code blocks, footers, attached files, edits."""
    posted = [m for _, t, m in chat.posts if t == thread]
    parts = [shown(m) + m.footer for m in posted + [m for _, m in chat.updates]]
    parts += [block.text for m in posted for block in m.attachments]
    parts += [f.data.decode(errors="replace") for m in posted for f in m.files]
    return "\n".join(parts)


async def test_a_secret_typed_in_a_request_is_never_repeated_in_the_thread(
    tmp_path: Path, lab: Lab
) -> None:
    """The request and a Modify feedback carry secret values: the bot's acknowledgement does
    not quote the request, and the gates, the decided footers, `status`, `audit`, the audit
    report and `pending` show the values masked; the audit keeps the request as typed."""
    chat = TeamChat()
    typed, fed_back = "s3cr3t-Comm", "N3w-Comm-42"
    async with team_bot(tmp_path, lab, chat) as bot:
        await bot.service.handle(ask(f"apply snmp to R1 community {typed}", "alice", HERE))
        await bot.service.handle(click(chat, "bob", "modify", f"community {fed_back}", HERE))
        await bot.service.handle(press(chat, HERE, "bob"))
        await bot.service.handle(press(chat, HERE, "bob"))
        change = await bot.audit.latest_change_for_thread(HERE.key)
        assert change is not None
        for command in ("status", f"audit change={change.change_id}", "audit report", "pending"):
            await bot.service.handle(ask(command, "carol", HERE))
        stored = await bot.audit.change_summary(change.change_id)
        chained = (await bot.audit.verify()).ok
    said = everything_said(chat, HERE)
    leaked = typed in said or fed_back in said
    attempt("masking: a secret typed in a request or feedback", not leaked)
    assert not leaked, said
    assert not any(typed in text for text in chat.texts())  # not even in the acknowledgement
    masked = bot.service.reporter.mask.token
    assert masked(typed) in said and masked(fed_back) in said  # shown masked, not dropped
    assert "snmp-server community" in lab.device("R1").running_config()  # the change went on
    assert stored is not None and typed in stored.text and chained  # stored as typed, chained


NO_DEVICE = {
    "set the snmp community to s3cr3t-Comm": "s3cr3t-Comm",  # the value where devices go
    "configure tacacs key Xyz123": "Xyz123",
    "username admin secret hunter22": "hunter22",
}


@pytest.mark.parametrize(("request_text", "typed"), NO_DEVICE.items())
async def test_a_request_naming_no_device_is_answered_without_its_secret(
    tmp_path: Path, lab: Lab, request_text: str, typed: str
) -> None:
    """The targets error names a word it could not take for a device: never a secret value."""
    chat = TeamChat()
    async with team_bot(tmp_path, lab, chat) as bot:
        await bot.service.handle(ask(request_text, "alice", HERE))
        await bot.service.handle(ask("audit", "carol", HERE))
        summaries = [
            entry_summary(entry, bot.service.reporter.mask) for entry in await bot.audit.entries()
        ]
    said = everything_said(chat, HERE)
    leaked = typed in said or any(typed in summary for summary in summaries)
    attempt("masking: a secret typed where devices go", not leaked)
    assert not leaked, said
    assert "which devices? name the devices" in said
