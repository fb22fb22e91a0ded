"""labbot on a real Synapse, end to end: people in a room, the bot as `labbot serve` runs it
(factory, runtime, SQLite, library planner), simulated devices over telnet."""

from __future__ import annotations

import json

import pytest

from labsim import Lab
from labsim.cli import CliSession
from tests.adapters.matrix.chat_user import ChatUser
from tests.adapters.matrix.labbot_harness import (
    PARAMS_STEP,
    REQUEST,
    TEMPLATE_STEP,
    BotThread,
    ServeLabbot,
    ask,
    decisions,
    routers_of,
)
from tests.adapters.matrix.room_events import (
    edit_of,
    membership,
    shared_room,
)
from tests.fakes.synapse import MatrixAccount
from workflow.ports import Inventory

pytestmark = pytest.mark.synapse


async def test_request_gate_reaction_preview_execute_push_and_audit(
    serve_labbot: ServeLabbot,
    bot_account: MatrixAccount,
    lab: tuple[Lab, Inventory],
    alice: ChatUser,
    bob: ChatUser,
) -> None:
    routers = routers_of(lab[0])  # "all routers": the switch is not one
    count = len(routers)
    async with serve_labbot(approvers=[bob.user_id]) as runtime:
        room = await shared_room(alice, bot_account.user_id, bob)
        thread, template = await ask(alice, room, bot_account.user_id)
        assert '<pre><code class="language-jinja">' in template["content"]["formatted_body"]

        await bob.react(room, template["event_id"], "✅")
        params = await thread.gate(PARAMS_STEP)
        assert "<pre><code" in params["content"]["formatted_body"]
        await alice.wait_for(edit_of(template["event_id"], "Approved by"))

        await bob.say(room, "execute", thread=thread.root, reply_to=params["event_id"])
        summary = await thread.says("pushed", f"✓ {count} ✗ 0 of {count}", within=120)
        await alice.wait_for(edit_of(params["event_id"], "Approved by"))

        await alice.say(room, "!labbot audit", thread=thread.root)
        audit = await thread.says("Audit:")
        entries = await runtime.audit.entries()
    assert "<pre><code" in summary["content"]["formatted_body"]
    for device in routers:
        assert "router ospf" in device.running_config(), device.name
    assert decisions(entries) == {"template": bob.user_id, "params": bob.user_id}
    decided_rows = [line for line in audit["content"]["body"].splitlines() if "decision" in line]
    assert len(decided_rows) == 2
    assert all(bob.user_id.split(":")[0][1:] in row for row in decided_rows)


async def test_a_reaction_from_outside_the_allow_list_is_refused_and_recorded(
    serve_labbot: ServeLabbot, bot_account: MatrixAccount, alice: ChatUser, bob: ChatUser
) -> None:
    async with serve_labbot(approvers=[bob.user_id]) as runtime:
        room = await shared_room(alice, bot_account.user_id, bob)
        thread, template = await ask(alice, room, bot_account.user_id)
        await alice.react(room, template["event_id"], "✅")
        refusal = await thread.says("Refused")
        assert refusal["content"]["m.mentions"] == {"user_ids": [alice.user_id]}
        await bob.react(room, template["event_id"], "✅")
        await thread.gate(PARAMS_STEP)
        entries = await runtime.audit.entries()
    refusals = [e for e in entries if e.kind == "refusal"]
    assert [e.actor_id for e in refusals] == [alice.user_id]
    assert decisions(entries) == {"template": bob.user_id}


async def test_two_reactions_at_once_make_one_decision(
    serve_labbot: ServeLabbot, bot_account: MatrixAccount, alice: ChatUser, bob: ChatUser
) -> None:
    # two people is all the harness has: the requester's click counts here (a solo lab)
    async with serve_labbot(allow_self_approval=True) as runtime:
        room = await shared_room(alice, bot_account.user_id, bob)
        thread, template = await ask(alice, room, bot_account.user_id)
        await alice.react(room, template["event_id"], "✅")
        await bob.react(room, template["event_id"], "✅")
        await thread.says("already approved")
        await thread.gate(PARAMS_STEP)
        entries = await runtime.audit.entries()
    assert thread.gates(PARAMS_STEP) == 1
    assert len([e for e in entries if e.kind == "decision"]) == 1


async def test_a_restart_between_gate_and_reaction_keeps_the_gate_and_replays_nothing(
    serve_labbot: ServeLabbot, bot_account: MatrixAccount, alice: ChatUser, bob: ChatUser
) -> None:
    async with serve_labbot():
        room = await shared_room(alice, bot_account.user_id, bob)
        thread, template = await ask(alice, room, bot_account.user_id)
    async with serve_labbot() as runtime:
        await bob.react(room, template["event_id"], "✅")
        await thread.gate(PARAMS_STEP)
        entries = await runtime.audit.entries()
    assert thread.gates(TEMPLATE_STEP) == 1  # the request ran once
    assert len([e for e in entries if e.kind == "change"]) == 1
    assert decisions(entries) == {"template": bob.user_id}


async def test_a_room_outside_labbot_matrix_rooms_is_ignored(
    serve_labbot: ServeLabbot, bot_account: MatrixAccount, alice: ChatUser
) -> None:
    bot_id = bot_account.user_id
    served = await alice.create_room([bot_id])
    other = await alice.create_room([bot_id])
    async with serve_labbot(matrix_rooms=[served]) as runtime:
        await alice.wait_for(membership(served, bot_id, "join"))
        ignored = await alice.say(other, REQUEST)
        await ask(alice, served, bot_id)
        entries = await runtime.audit.entries()
    assert alice.membership(other, bot_id) != "join"
    assert not alice.in_thread(other, ignored)
    assert {e.channel for e in entries if e.kind == "change"} == {served}


async def test_a_read_of_a_configuration_shows_its_secrets_masked_in_the_room(
    serve_labbot: ServeLabbot,
    bot_account: MatrixAccount,
    lab: tuple[Lab, Inventory],
    alice: ChatUser,
    bob: ChatUser,
) -> None:
    """What the room receives (body and formatted_body) holds tokens, no secret value."""
    planted = {
        "Mx-Comm-42": "snmp-server community Mx-Comm-42 RO",
        "$1$Mx$En": "enable secret 5 $1$Mx$En",
    }
    console = CliSession(lab[0].device("R1"), privileged=True, secret="")
    for line in ["configure terminal", *planted.values(), "end"]:
        console.feed_line(line)
    async with serve_labbot(approvers=[bob.user_id]) as runtime:
        room = await shared_room(alice, bot_account.user_id, bob)
        root = await alice.say(room, "!labbot show running-config on R1")
        thread = BotThread(alice, room, root, bot_account.user_id)
        await thread.says("✓ R1")
        mask = runtime.service.reporter.mask
    received = json.dumps(alice.raw_events(room), ensure_ascii=False)
    assert [value for value in planted if value in received] == []
    assert f"snmp-server community {mask.token('Mx-Comm-42')} RO" in received
