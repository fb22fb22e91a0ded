"""What labbot stores is exact and sealed: a change and its rollback on a device whose config holds
passwords, SNMP communities and keys (some equal to the login labbot uses) give back the running
configuration byte for byte, and no planted value is in clear anywhere in the database, on
SQLite (its files' bytes too) and PostgreSQL. A backup stored masked is never pushed back. A
secret typed in a request, a Modify feedback, a read command and an MCP agent's arguments is
sealed in the audit too: `labbot audit` shows it masked, `labbot audit verify` passes, and says
which key is missing when none opens a row."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
import sqlalchemy as sa
from pydantic import SecretStr

from adapters.chat import ThreadRef
from bot.cli.demo import DEMO_CREDENTIALS, demo_settings
from bot.policy.agent_principals import token_hash
from bot.runtime.agent_tools import agent_tools
from bot.runtime.wiring import Runtime, open_runtime
from bot.settings import Settings, load_settings
from labsim import Lab, demo_topology
from storage.db import make_engine
from storage.encryption import new_key
from storage.schema import config_backups
from tests.bot.chat import ask
from tests.bot.test_cli import labbot
from tests.security.at_rest import found_in_database, found_in_files, plant, sqlite_files
from tests.security.service import TeamChat, place, press
from tests.security.tally import attempt
from tests.support.postgres import SHARED_AUDIT_KEY, SHARED_STORAGE_KEY, fresh_postgres_database
from workflow.devices.inventories.static import StaticInventory

if TYPE_CHECKING:
    from frrlab import FrrLab

LOGIN, ENABLE = DEMO_CREDENTIALS["password"], DEMO_CREDENTIALS["secret"]
IOS_SECRETS = [
    f"username netops privilege 15 secret 0 {LOGIN}",  # equal to the login labbot uses
    f"snmp-server community {ENABLE} RO",  # equal to the enable secret labbot uses
    "snmp-server community Pl4nted-Comm-81 RW",
    "ntp authentication-key 1 md5 Pl4nted-Ntp-42",
    "crypto isakmp key Pl4nted-Ike-77 address 0.0.0.0",
    "tacacs-server key Pl4nted-Tac-55",
    "interface GigabitEthernet0/0",
    " ip ospf authentication-key Pl4nted-Ospf-9",
]
PLANTED = [LOGIN, ENABLE, "Pl4nted-Comm-81", "Pl4nted-Ntp-42", "Pl4nted-Ike-77", "Pl4nted-Tac-55",
           "Pl4nted-Ospf-9"]  # fmt: skip
HERE, UNDO = place("C-lab"), place("C-lab", "t2")


@pytest.fixture
async def lab() -> AsyncIterator[Lab]:
    async with Lab.start(demo_topology(2), ssh=False, **DEMO_CREDENTIALS) as lab:
        plant(lab.device("R1"), IOS_SECRETS)
        yield lab


def settings_on(tmp_path: Path, url: str | None, **extra: str) -> Settings:
    settings = demo_settings(load_settings(data_dir=tmp_path, **extra))
    if url is not None:  # a shared database: the keys come from the settings
        shared = {
            "audit_key": SecretStr(SHARED_AUDIT_KEY),
            "storage_key": SecretStr(SHARED_STORAGE_KEY),
        }
        settings = settings.model_copy(update={"database_url": url, **shared})
    return settings


@asynccontextmanager
async def bot_on(
    lab: Lab | FrrLab, tmp_path: Path, chat: TeamChat, url: str | None, **extra: str
) -> AsyncIterator[Runtime]:
    settings = settings_on(tmp_path, url, **extra)
    inventory = StaticInventory(lab.write_inventory(tmp_path / "hosts.yaml"))
    async with open_runtime(settings, chat, inventory=inventory) as runtime:
        yield runtime


async def change(bot: Runtime, chat: TeamChat, text: str, thread: ThreadRef) -> str:
    """alice asks, bob approves the template and executes; the change id."""
    await bot.service.handle(ask(text, "alice", thread))
    for step in ("Step 1 of 2", "Step 2 of 2"):
        found = chat.gate_in(thread)
        assert found is not None and step in found[1].text, chat.texts()[-3:]
        await bot.service.handle(press(chat, thread, "bob"))
    done = await bot.audit.latest_change_for_thread(thread.key)
    assert done is not None
    return str(done.change_id)


@asynccontextmanager
async def database(backend: str, request: pytest.FixtureRequest) -> AsyncIterator[str | None]:
    if backend == "sqlite":
        yield None
        return
    async with fresh_postgres_database(request.getfixturevalue("postgres_url")) as url:
        yield url


POSTGRES = pytest.param("postgresql", marks=pytest.mark.postgres)


@pytest.mark.parametrize("backend", ["sqlite", POSTGRES])
async def test_a_rollback_restores_the_running_config_exactly_and_nothing_is_stored_in_clear(
    tmp_path: Path, lab: Lab, backend: str, request: pytest.FixtureRequest
) -> None:
    """The issue's case: rolling back an unrelated NTP change on a device whose SNMP community
    and a user's password equal labbot's login pushed `snmp-server community ******** RO`."""
    chat = TeamChat()
    r1 = lab.device("R1")
    before = r1.running_config()
    async with database(backend, request) as url:
        async with bot_on(lab, tmp_path, chat, url) as bot:
            change_id = await change(bot, chat, "apply ntp to R1 servers=10.66.0.9", HERE)
            changed = r1.running_config()
            await change(bot, chat, f"rollback {change_id}", UNDO)
        engine = make_engine(url or f"sqlite+aiosqlite:///{tmp_path / 'labbot.db'}")
        try:
            in_clear = await found_in_database(engine, PLANTED)
        finally:
            await engine.dispose()
    restored = r1.running_config()
    attempt("at rest: a rollback restores the running configuration exactly", restored == before)
    assert "ntp server 10.66.0.9" in changed
    assert restored == before, chat.texts()[-3:]
    assert "********" not in "\n".join(r1.commands_seen)  # no mask ever reached the device
    if url is None:  # every byte of the SQLite files, write-ahead log included
        in_clear |= found_in_files(sqlite_files(tmp_path / "labbot.db"), PLANTED)
    attempt("at rest: no planted secret in clear in the database", not in_clear)
    assert in_clear == {}


async def test_a_backup_stored_masked_is_refused_never_pushed(tmp_path: Path, lab: Lab) -> None:
    """A "before" backup stored masked (as the release before this one stored it) would roll
    back to the mask itself: the push is refused, saying why, and the device keeps its text."""
    chat = TeamChat()
    r1 = lab.device("R1")
    async with bot_on(lab, tmp_path, chat, None) as bot:
        change_id = await change(bot, chat, "apply ntp to R1 servers=10.66.0.9", HERE)
        masked = r1.running_config().replace(ENABLE, "********")  # what the release stored
        masked = masked.replace("ntp server 10.66.0.9\n", "")
        engine = bot.audit.engine
        async with engine.begin() as conn:
            await conn.execute(
                sa.update(config_backups)
                .where(config_backups.c.change_id == change_id, config_backups.c.stage == "before")
                .values(config=masked, sealed=None)
            )
        changed = r1.running_config()
        await change(bot, chat, f"rollback {change_id}", UNDO)
    said = "\n".join(chat.texts())
    refused = "carries a masked secret (********)" in said and r1.running_config() == changed
    attempt("at rest: a masked line is never pushed", refused)
    assert refused, chat.texts()[-3:]
    assert f"snmp-server community {ENABLE} RO" in r1.running_config()


FRR_SECRETS = [
    f"password {LOGIN}",  # equal to the login labbot uses
    "enable password Pl4nted-En-2",
    "interface eth0",
    "ip ospf authentication-key Pl4ntOsp",  # FRR keeps 8 characters of a simple key
    "ip ospf message-digest-key 1 md5 Pl4nted-Md5-3",
    "exit",
]
FRR_PLANTED = [LOGIN, "Pl4nted-En-2", "Pl4ntOsp", "Pl4nted-Md5-3"]


@pytest.mark.frr
@pytest.mark.usefixtures("frr_host")
@pytest.mark.xdist_group("frr-lab")  # see tests/frrlab/__init__.py
async def test_on_real_frr_a_rollback_restores_every_router_exactly_and_nothing_is_in_clear(
    tmp_path: Path,
) -> None:
    from frrlab import FrrLab

    chat = TeamChat()
    async with FrrLab.start() as lab:
        for router in lab.routers:
            lab.vtysh(router, "configure terminal", *FRR_SECRETS)
        before = {r: lab.vtysh(r, "show running-config") for r in lab.routers}
        async with bot_on(lab, tmp_path, chat, None) as bot:
            change_id = await change(bot, chat, "configure ospf on all routers fast=true", HERE)
            changed = {r: lab.vtysh(r, "show running-config") for r in lab.routers}
            await change(bot, chat, f"rollback {change_id}", UNDO)
        after = {r: lab.vtysh(r, "show running-config") for r in lab.routers}
    engine = make_engine(f"sqlite+aiosqlite:///{tmp_path / 'labbot.db'}")
    try:
        in_clear = await found_in_database(engine, FRR_PLANTED)
    finally:
        await engine.dispose()
    in_clear |= found_in_files(sqlite_files(tmp_path / "labbot.db"), FRR_PLANTED)
    assert all("Pl4nted-Md5-3" in text and "router ospf" in text for text in changed.values())
    attempt("at rest: a rollback on real FRR restores the running configuration", after == before)
    assert after == before, chat.texts()[-3:]
    attempt("at rest: no planted FRR secret in clear in the database", not in_clear)
    assert in_clear == {}


TYPED = ["Bob-Comm-77", "Fb-Comm-78", "Read-Comm-79", "Agent-Comm-80"]
TYPED_REQUEST = "configure snmp community Bob-Comm-77 RO on R1"
TYPED_READ = "show running-config | include snmp-server community "
AGENT, AGENT_TOKEN = "claude-code", "lbt_audit-at-rest-agent-token"
AGENT_SETTINGS = {
    "mcp_agents": f"{AGENT}=console:alice {token_hash(AGENT_TOKEN)}",
    "mcp_channel": "console",
}


def cli_env(tmp_path: Path, url: str | None) -> dict[str, str]:
    """`labbot audit` on the database the bot wrote, with its keys."""
    if url is None:  # the embedded database: its keys are files beside it
        return {"LABBOT_DATA_DIR": str(tmp_path)}
    keys = {"LABBOT_AUDIT_KEY": SHARED_AUDIT_KEY, "LABBOT_STORAGE_KEY": SHARED_STORAGE_KEY}
    return {"LABBOT_DATABASE_URL": url, **keys}


@pytest.mark.parametrize("backend", ["sqlite", POSTGRES])
async def test_secrets_typed_to_the_bot_are_sealed_in_the_audit_and_shown_masked(
    tmp_path: Path, lab: Lab, backend: str, request: pytest.FixtureRequest
) -> None:
    """A request, a Modify feedback, a read command and an MCP agent's arguments, each with an
    SNMP community typed in clear: none is in the database in clear, `labbot audit` shows each
    masked, `labbot audit verify` passes, and without the key that sealed them it names it."""
    chat, asked = TeamChat(), place("C-lab", "t3")
    async with database(backend, request) as url:
        async with bot_on(lab, tmp_path, chat, url, **AGENT_SETTINGS) as bot:
            await bot.service.handle(ask(TYPED_REQUEST, "alice", asked))
            await bot.service.handle(press(chat, asked, "bob"))  # the template, as it is
            gate = press(chat, asked, "bob", "modify")  # the parameters: another community
            feedback = "community=Fb-Comm-78 read_only=true"
            await bot.service.handle(dataclasses.replace(gate, feedback=feedback))
            await bot.service.handle(ask(f"{TYPED_READ}Read-Comm-79 on R1", "carol", asked))
            tools = agent_tools(settings_on(tmp_path, url, **AGENT_SETTINGS), bot, "stdio")
            await tools.show(AGENT, f"{TYPED_READ}Agent-Comm-80", ["R1"])
            mask = bot.service.reporter.mask
        engine = make_engine(url or f"sqlite+aiosqlite:///{tmp_path / 'labbot.db'}")
        try:
            in_clear = await found_in_database(engine, TYPED)
        finally:
            await engine.dispose()
        if url is None:
            in_clear |= found_in_files(sqlite_files(tmp_path / "labbot.db"), TYPED)
        env = cli_env(tmp_path, url)
        listing = await asyncio.to_thread(
            labbot, "audit", "--format", "json", cwd=tmp_path, env=env
        )
        verified = await asyncio.to_thread(labbot, "audit", "verify", cwd=tmp_path, env=env)
        lost = {**env, "LABBOT_STORAGE_KEY": new_key()}  # the key that sealed them is gone
        unopened = await asyncio.to_thread(labbot, "audit", "verify", cwd=tmp_path, env=lost)
    attempt("at rest: no secret typed to the bot in clear in the audit", not in_clear)
    assert in_clear == {}
    said = {entry["kind"]: entry["summary"] for entry in json.loads(listing.stdout)}
    assert set(said) >= {"change", "decision", "read", "agent"}, listing.stdout
    assert not [value for value in TYPED if value in listing.stdout], listing.stdout
    assert mask.token("Bob-Comm-77") in said["change"], said
    assert mask.token("Fb-Comm-78") in said["decision"], said
    assert verified.returncode == 0 and "audit chain intact" in verified.stdout, verified.stdout
    assert unopened.returncode == 1, unopened.stdout + unopened.stderr
    assert "cannot be opened with any key of LABBOT_STORAGE_KEY" in unopened.stdout
    assert "Traceback" not in unopened.stdout + unopened.stderr
