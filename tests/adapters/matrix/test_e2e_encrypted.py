"""labbot in an end-to-end encrypted room of a real Synapse, end to end: people on their own E2EE
clients, the bot as `labbot serve` runs it (factory, runtime, SQLite, library planner, key store
in LABBOT_DATA_DIR), simulated devices over telnet."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from nio import AsyncClient

from bot.audit.table import entry_summary
from labsim import Lab
from tests.adapters.matrix.chat_user import ChatUser
from tests.adapters.matrix.labbot_harness import (
    PARAMS_STEP,
    TEMPLATE_STEP,
    ServeLabbot,
    ask,
    decisions,
    routers_of,
)
from tests.adapters.matrix.room_events import edit_of, reaction_by, shared_room
from tests.bot.test_cli import labbot as cli
from tests.fakes.synapse import MatrixAccount
from tests.support.masks import MASK
from workflow.ports import Inventory

pytestmark = pytest.mark.synapse
MakeUser = Callable[[str], Awaitable[ChatUser]]


async def test_a_change_runs_from_request_to_audit_and_nothing_leaves_in_clear(
    serve_labbot: ServeLabbot,
    bot_account: MatrixAccount,
    lab: tuple[Lab, Inventory],
    e2e_user: MakeUser,
) -> None:
    routers = routers_of(lab[0])  # "all routers": the switch is not one
    count = len(routers)
    alice, bob = await e2e_user("alice"), await e2e_user("bob")
    bot_id = bot_account.user_id
    async with serve_labbot(approvers=[bob.user_id]) as runtime:
        room = await shared_room(alice, bot_id, bob, encrypted=True)
        thread, template = await ask(alice, room, bot_id)
        await bob.react(room, template["event_id"], "✅")  # plain m.reaction, as Element sends
        params = await thread.gate(PARAMS_STEP)
        await alice.wait_for(edit_of(template["event_id"], "Approved by"))
        await bob.say(room, "execute", thread=thread.root, reply_to=params["event_id"])  # encrypted
        await thread.says("pushed", f"✓ {count} ✗ 0 of {count}", within=120)
        await alice.wait_for(edit_of(params["event_id"], "Approved by"))
        picture = await alice.wait_for(
            lambda r, e: r == room and e.get("content", {}).get("msgtype") == "m.image"
        )
        await alice.say(room, "!labbot audit", thread=thread.root)
        audit = await thread.says("Audit:")
        entries = await runtime.audit.entries()
    for device in routers:
        assert "router ospf" in device.running_config(), device.name
    assert decisions(entries) == {"template": bob.user_id, "params": bob.user_id}
    assert sum("decision" in line for line in audit["content"]["body"].splitlines()) == 2
    from_bot = [e for e in alice.raw_events(room) if e["sender"] == bot_id]
    said = [e for e in from_bot if "state_key" not in e and e["type"] != "m.reaction"]
    assert len(said) >= 6  # planning note, two gates, two edits, progress, result, audit
    assert {e["type"] for e in said} == {"m.room.encrypted"}
    assert all("body" not in e["content"] for e in said)
    # the topology picture went to the media repository encrypted: only its keys are in the event
    assert "url" not in picture["content"] and picture["content"]["file"]["url"].startswith("mxc:")
    assert picture["content"]["file"]["key"]["alg"] == "A256CTR"


async def test_after_a_restart_between_gate_and_reaction_the_bot_still_decrypts_and_decides(
    serve_labbot: ServeLabbot, bot_account: MatrixAccount, e2e_user: MakeUser
) -> None:
    alice, bob = await e2e_user("alice"), await e2e_user("bob")
    bot_id = bot_account.user_id
    async with serve_labbot():
        room = await shared_room(alice, bot_id, bob, encrypted=True)
        thread, template = await ask(alice, room, bot_id)
        await bob.say(room, "looking at it", thread=thread.root)  # bob's room key reaches the bot
        assert bob.client.olm is not None
        before_restart = bob.client.olm.outbound_group_sessions[room].id
    async with serve_labbot() as runtime:
        # The same room key of bob's: only the stored key of the same bot device decrypts it.
        await bob.send_encrypted_reaction(room, template["event_id"], "✅")
        await thread.gate(PARAMS_STEP)
        entries = await runtime.audit.entries()
    assert bob.client.olm.outbound_group_sessions[room].id == before_restart
    assert decisions(entries) == {"template": bob.user_id}
    assert len([e for e in entries if e.kind == "change"]) == 1


async def test_someone_who_joins_after_the_gate_reads_it_at_once_and_decides(
    serve_labbot: ServeLabbot,
    bot_account: MatrixAccount,
    e2e_user: MakeUser,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """carol joins after the gate, and her join is the last thing that happens in the room: she
    reads the gate at once (not when the bot's next sync ends, up to its 30 s) and decides it."""
    alice, carol = await e2e_user("alice"), await e2e_user("carol")
    bot_id = bot_account.user_id
    syncing = asyncio.Event()
    syncing.set()
    nio_sync = AsyncClient.sync

    async def bot_sync_held(client: AsyncClient, *args: Any, **kwargs: Any) -> Any:
        if client.user_id == bot_id:
            await syncing.wait()
        return await nio_sync(client, *args, **kwargs)

    monkeypatch.setattr(AsyncClient, "sync", bot_sync_held)
    async with serve_labbot() as runtime:
        room = await shared_room(alice, bot_id, encrypted=True)
        thread, template = await ask(alice, room, bot_id)
        await alice.wait_for(reaction_by(bot_id, template["event_id"], "❌"))  # bot done
        syncing.clear()  # the bot's next sync waits until carol has joined: one sync brings it
        await alice.client.room_invite(room, carol.user_id)
        await carol.join(room)
        syncing.set()
        shown = await carol.read(room, template["event_id"], within=10)
        await carol.react(room, template["event_id"], "✅")
        await thread.gate(PARAMS_STEP)
        entries = await runtime.audit.entries()
    assert TEMPLATE_STEP in shown["content"]["body"]
    assert decisions(entries) == {"template": carol.user_id}


async def test_under_verified_trust_an_unverified_device_is_refused_and_recorded(
    serve_labbot: ServeLabbot, bot_account: MatrixAccount, tmp_path: Path, e2e_user: MakeUser
) -> None:
    alice, bob = await e2e_user("alice"), await e2e_user("bob")
    bot_id = bot_account.user_id
    async with serve_labbot(approvers=[bob.user_id], matrix_trust="verified") as runtime:
        room = await shared_room(alice, bot_id, bob, encrypted=True)
        thread, template = await ask(alice, room, bot_id)
        await bob.send_encrypted_reaction(room, template["event_id"], "✅")
        refused = await thread.says("not verified")
        await bob.react(room, template["event_id"], "✅")  # plain: no device to vouch for
        await thread.says("not encrypted")
        # The operator compares bob's session key with what bob's client shows, out of band.
        assert bob.client.olm is not None
        key = bob.client.olm.account.identity_keys["ed25519"]
        env = {"LABBOT_DATA_DIR": str(tmp_path), "COLUMNS": "200"}
        listed = await asyncio.to_thread(cli, "matrix", "devices", cwd=tmp_path, env=env)
        wrong = await asyncio.to_thread(
            cli, "matrix", "verify", bob.user_id, bob.device_id, "A" * 43, cwd=tmp_path, env=env
        )
        as_shown = " ".join(key[i : i + 4] for i in range(0, len(key), 4))  # Element's grouping
        verified = await asyncio.to_thread(
            cli, "matrix", "verify", bob.user_id, bob.device_id, as_shown, cwd=tmp_path, env=env
        )
        await bob.say(room, "approve", thread=thread.root, reply_to=template["event_id"])
        await thread.gate(PARAMS_STEP)
        entries = await runtime.audit.entries()
    assert listed.returncode == 0, listed.stderr
    (bobs,) = [line for line in listed.stdout.splitlines() if bob.device_id in line]
    assert key in bobs and bobs.split()[-2] in ("unverified", "ignored"), bobs
    assert wrong.returncode == 2 and "not this device's key" in wrong.stderr
    assert verified.returncode == 0 and f"verified {bob.user_id} {bob.device_id}" in verified.stdout
    assert refused["content"]["m.mentions"] == {"user_ids": [bob.user_id]}
    refusals = [e for e in entries if e.kind == "refusal"]
    assert [(e.actor_id, e.gate) for e in refusals] == [(bob.user_id, "template")] * 2
    assert "not verified" in entry_summary(refusals[0], MASK)
    assert decisions(entries) == {"template": bob.user_id}
