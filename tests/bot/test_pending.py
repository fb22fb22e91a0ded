"""`pending`: three people with different rights in two channels, asked after a restart, through
the real decision service, graph, SQLite/PostgreSQL storage and simulated lab."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from pydantic import SecretStr

from adapters.chat import ThreadRef
from adapters.links import matrix_event_link, slack_permalink, thread_of
from bot.cli.demo import DEMO_CREDENTIALS, demo_settings
from bot.cli.pending import pending_report
from bot.runtime.wiring import Runtime, open_runtime
from bot.settings import Settings, load_settings
from labsim import Lab, demo_topology
from tests.bot.chat import RecordingAdapter, ask
from tests.support.postgres import SHARED_AUDIT_KEY, SHARED_STORAGE_KEY, fresh_postgres_database

LAB_A = ThreadRef("console", "lab-a", "a1")
LAB_A2 = ThreadRef("console", "lab-a", "a2")
LAB_B = ThreadRef("console", "lab-b", "b1")
# lab-a: alice and bob approve; lab-b: carol and bob
RULES = "lab-a=console:alice console:bob;lab-b=console:carol console:bob"


@pytest.fixture
async def lab() -> AsyncIterator[Lab]:
    async with Lab.start(demo_topology(3), **DEMO_CREDENTIALS) as lab:
        yield lab


def settings_for(tmp_path: Path, lab: Lab, database_url: str) -> Settings:
    inventory = lab.write_inventory(tmp_path / "hosts.yaml")
    settings = demo_settings(
        load_settings(data_dir=tmp_path, approvers_by_channel=RULES, inventory=inventory)
    )
    if not database_url:
        return settings
    shared = {
        "database_url": database_url,
        "audit_key": SecretStr(SHARED_AUDIT_KEY),
        "storage_key": SecretStr(SHARED_STORAGE_KEY),
    }
    return settings.model_copy(update=shared)


@asynccontextmanager
async def bot(settings: Settings, chat: RecordingAdapter) -> AsyncIterator[Runtime]:
    async with open_runtime(settings, chat) as runtime:
        yield runtime


async def ask_pending(settings: Settings, who: str, thread: ThreadRef) -> str:
    chat = RecordingAdapter()
    async with bot(settings, chat) as runtime:
        await runtime.service.handle(ask("pending", who, thread))
    return chat.texts()[-1]


def listed(text: str) -> tuple[list[str], list[str]]:
    """(change ids waiting for the asker, change ids the asker requested), as shown."""
    mine = text.index("Your open changes")
    ids = [(i, w) for i, w in enumerate(text.split()) if w.startswith("chg-")]
    cut = len(text[:mine].split())
    return [w for i, w in ids if i < cut], [w for i, w in ids if i >= cut]


async def three_open_changes(settings: Settings) -> dict[str, str]:
    chat = RecordingAdapter()
    async with bot(settings, chat) as runtime:
        await runtime.service.handle(ask("apply ospf to R1,R2", "alice", LAB_A))
        await runtime.service.handle(ask("apply ntp to R3 servers=10.0.0.1", "bob", LAB_A2))
        await runtime.service.handle(ask("apply ospf to R3", "carol", LAB_B))
        ids = {}
        for who, thread in (("alice", LAB_A), ("bob", LAB_A2), ("carol", LAB_B)):
            change = await runtime.audit.latest_change_for_thread(thread.key)
            assert change is not None
            ids[who] = change.change_id
    assert len([m for m in chat.messages() if m.buttons]) == 3, chat.texts()
    return ids


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
async def test_pending_follows_each_persons_rights_after_a_restart(
    tmp_path: Path, lab: Lab, backend: str, postgres_url: str
) -> None:
    database = fresh_postgres_database(postgres_url) if backend == "postgresql" else _no_db()
    async with database as url:
        settings = settings_for(tmp_path, lab, url)
        ids = await three_open_changes(settings)  # that runtime is closed: a restart follows
        alice = await ask_pending(settings, "alice", LAB_B)
        bob = await ask_pending(settings, "bob", LAB_A)
        carol = await ask_pending(settings, "carol", LAB_A2)
        cli = await pending_report(settings, "console:bob")
    assert listed(alice) == ([ids["bob"]], [ids["alice"]])  # not her own; not lab-b
    assert listed(bob) == ([ids["alice"], ids["carol"]], [ids["bob"]])  # both channels
    assert listed(carol) == ([], [ids["carol"]])  # not an approver in lab-a; not her own
    assert listed(cli) == listed(bob)
    line = next(line for line in bob.splitlines() if ids["alice"] in line)
    assert "template step" in line and "requested by alice" in line
    assert "R1, R2" in line and "waiting 0 min" in line and "expires 20" in line
    assert LAB_A.key in line  # the console's link is its thread


@asynccontextmanager
async def _no_db() -> AsyncIterator[str]:
    yield ""


def test_thread_links_name_the_thread() -> None:
    assert slack_permalink("C0123", "1700000000.123456") == (
        "https://slack.com/archives/C0123/p1700000000123456"
    )
    assert matrix_event_link("!room:example.org", "$ev1") == (
        "https://matrix.to/#/%21room%3Aexample.org/%24ev1"
    )
    thread = ThreadRef("matrix", "!room:example.org", "$ev:1")
    assert thread_of("matrix", "!room:example.org", thread.key) == thread
