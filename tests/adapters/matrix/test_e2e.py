"""labbot on a real Synapse, end to end: people in a room, the bot as `labbot serve` runs it
(factory, runtime, SQLite, library planner), simulated devices over telnet."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from labsim import Lab
from tests.adapters.matrix.chat_user import ChatUser, Event
from tests.adapters.matrix.labbot_harness import (
    PARAMS_STEP,
    REQUEST,
    TEMPLATE_STEP,
    body_has,
    bot_message,
    is_gate,
    labbot,
    labbot_settings,
    routers_of,
    shared_room,
)
from tests.fakes.synapse import MatrixAccount, Synapse
from workflow.ports import Inventory

pytestmark = pytest.mark.synapse


def settings_for(
    synapse: Synapse, bot_account: MatrixAccount, tmp_path: Path, **overrides: Any
) -> Any:
    return labbot_settings(synapse, bot_account, tmp_path, **overrides)


def decisions(entries: list[Any]) -> dict[str, str]:
    """gate -> who decided it, from the audit records."""
    return {e.gate: e.actor_id for e in entries if e.kind == "decision"}


async def test_request_gate_reaction_preview_execute_push_and_audit(
    synapse: Synapse,
    bot_account: MatrixAccount,
    tmp_path: Path,
    lab: tuple[Lab, Inventory],
    alice: ChatUser,
    bob: ChatUser,
) -> None:
    simulated, inventory = lab
    routers = routers_of(simulated)  # "all routers": the switch is not one
    count = len(routers)
    bot_id = bot_account.user_id
    settings = settings_for(synapse, bot_account, tmp_path, approvers=[bob.user_id])
    async with labbot(settings, inventory) as runtime:
        room = await shared_room(alice, bot_id, bob)
        asked = await alice.say(room, REQUEST)
        template = await alice.wait_for(
            bot_message(room, asked, bot_id, is_gate(TEMPLATE_STEP)), within=60
        )
        assert '<pre><code class="language-jinja">' in template["content"]["formatted_body"]

        await bob.react(room, template["event_id"], "✅")
        params = await alice.wait_for(
            bot_message(room, asked, bot_id, is_gate(PARAMS_STEP)), within=60
        )
        assert "<pre><code" in params["content"]["formatted_body"]
        await alice.wait_for(edit_of(template["event_id"], "Approved by"))

        await bob.say(room, "execute", thread=asked)
        pushed = body_has("pushed", f"✓ {count} ✗ 0 of {count}")
        summary = await alice.wait_for(bot_message(room, asked, bot_id, pushed), within=120)
        await alice.wait_for(edit_of(params["event_id"], "Approved by"))

        await alice.say(room, "!labbot audit", thread=asked)
        audit = await alice.wait_for(bot_message(room, asked, bot_id, body_has("Audit:")))
        entries = await runtime.audit.entries()
    assert "<pre><code" in summary["content"]["formatted_body"]
    for device in routers:
        assert "router ospf" in device.running_config(), device.name
    assert decisions(entries) == {"template": bob.user_id, "params": bob.user_id}
    decided_rows = [line for line in audit["content"]["body"].splitlines() if "decision" in line]
    assert len(decided_rows) == 2
    assert all(bob.user_id.split(":")[0][1:] in row for row in decided_rows)


def edit_of(event_id: str, text: str) -> Callable[[str, Event], bool]:
    def matches(room: str, event: Event) -> bool:
        content = event.get("content", {})
        relation = content.get("m.relates_to") or {}
        return (
            relation.get("rel_type") == "m.replace"
            and relation.get("event_id") == event_id
            and text in content.get("m.new_content", {}).get("body", "")
        )

    return matches


async def test_a_reaction_from_outside_the_allow_list_is_refused_and_recorded(
    synapse: Synapse,
    bot_account: MatrixAccount,
    tmp_path: Path,
    lab: tuple[Lab, Inventory],
    alice: ChatUser,
    bob: ChatUser,
) -> None:
    _, inventory = lab
    bot_id = bot_account.user_id
    settings = settings_for(synapse, bot_account, tmp_path, approvers=[bob.user_id])
    async with labbot(settings, inventory) as runtime:
        room = await shared_room(alice, bot_id, bob)
        asked = await alice.say(room, REQUEST)
        template = await alice.wait_for(
            bot_message(room, asked, bot_id, is_gate(TEMPLATE_STEP)), within=60
        )
        await alice.react(room, template["event_id"], "✅")
        refusal = await alice.wait_for(bot_message(room, asked, bot_id, body_has("Refused")))
        assert refusal["content"]["m.mentions"] == {"user_ids": [alice.user_id]}
        await bob.react(room, template["event_id"], "✅")
        await alice.wait_for(bot_message(room, asked, bot_id, is_gate(PARAMS_STEP)), within=60)
        entries = await runtime.audit.entries()
    refusals = [e for e in entries if e.kind == "refusal"]
    assert [e.actor_id for e in refusals] == [alice.user_id]
    assert decisions(entries) == {"template": bob.user_id}


async def test_two_reactions_at_once_make_one_decision(
    synapse: Synapse,
    bot_account: MatrixAccount,
    tmp_path: Path,
    lab: tuple[Lab, Inventory],
    alice: ChatUser,
    bob: ChatUser,
) -> None:
    _, inventory = lab
    bot_id = bot_account.user_id
    # two people is all the harness has: the requester's click counts here (a solo lab)
    settings = settings_for(synapse, bot_account, tmp_path, allow_self_approval=True)
    async with labbot(settings, inventory) as runtime:
        room = await shared_room(alice, bot_id, bob)
        asked = await alice.say(room, REQUEST)
        template = await alice.wait_for(
            bot_message(room, asked, bot_id, is_gate(TEMPLATE_STEP)), within=60
        )
        await alice.react(room, template["event_id"], "✅")
        await bob.react(room, template["event_id"], "✅")
        await alice.wait_for(bot_message(room, asked, bot_id, body_has("already approved")))
        await alice.wait_for(bot_message(room, asked, bot_id, is_gate(PARAMS_STEP)), within=60)
        entries = await runtime.audit.entries()
    thread = alice.in_thread(room, asked)
    assert sum(1 for e in thread if is_gate(PARAMS_STEP)(e)) == 1
    assert len([e for e in entries if e.kind == "decision"]) == 1


async def test_a_restart_between_gate_and_reaction_keeps_the_gate_and_replays_nothing(
    synapse: Synapse,
    bot_account: MatrixAccount,
    tmp_path: Path,
    lab: tuple[Lab, Inventory],
    alice: ChatUser,
    bob: ChatUser,
) -> None:
    _, inventory = lab
    bot_id = bot_account.user_id
    settings = settings_for(synapse, bot_account, tmp_path)
    async with labbot(settings, inventory):
        room = await shared_room(alice, bot_id, bob)
        asked = await alice.say(room, REQUEST)
        template = await alice.wait_for(
            bot_message(room, asked, bot_id, is_gate(TEMPLATE_STEP)), within=60
        )
    async with labbot(settings, inventory) as runtime:
        await bob.react(room, template["event_id"], "✅")
        await alice.wait_for(bot_message(room, asked, bot_id, is_gate(PARAMS_STEP)), within=60)
        entries = await runtime.audit.entries()
    thread = alice.in_thread(room, asked)
    assert sum(1 for e in thread if is_gate(TEMPLATE_STEP)(e)) == 1  # the request ran once
    assert len([e for e in entries if e.kind == "change"]) == 1
    assert decisions(entries) == {"template": bob.user_id}


async def test_a_room_outside_labbot_matrix_rooms_is_ignored(
    synapse: Synapse,
    bot_account: MatrixAccount,
    tmp_path: Path,
    lab: tuple[Lab, Inventory],
    alice: ChatUser,
) -> None:
    _, inventory = lab
    bot_id = bot_account.user_id
    served = await alice.create_room([bot_id])
    other = await alice.create_room([bot_id])
    settings = settings_for(synapse, bot_account, tmp_path, matrix_rooms=[served])
    async with labbot(settings, inventory) as runtime:
        await alice.wait_for(
            lambda r, e: (
                r == served
                and e.get("state_key") == bot_id
                and e["content"].get("membership") == "join"
            )
        )
        ignored = await alice.say(other, REQUEST)
        asked = await alice.say(served, REQUEST)
        await alice.wait_for(bot_message(served, asked, bot_id, is_gate(TEMPLATE_STEP)), within=60)
        entries = await runtime.audit.entries()
    assert alice.membership(other, bot_id) != "join"
    assert not alice.in_thread(other, ignored)
    assert {e.channel for e in entries if e.kind == "change"} == {served}


async def test_room_power_levels_and_direct_rooms_decide_who_may_approve(
    synapse: Synapse,
    bot_account: MatrixAccount,
    tmp_path: Path,
    lab: tuple[Lab, Inventory],
    alice: ChatUser,
    bob: ChatUser,
) -> None:
    _, inventory = lab
    bot_id = bot_account.user_id
    owners = tmp_path / "owners"
    owners.write_text("*  power>=50\n")  # room moderators own every device
    settings = settings_for(synapse, bot_account, tmp_path, owners=owners)
    async with labbot(settings, inventory) as runtime:
        room = await shared_room(alice, bot_id, bob)
        asked = await alice.say(room, REQUEST)
        await alice.wait_for(bot_message(room, asked, bot_id, is_gate(TEMPLATE_STEP)), within=60)
        await bob.say(room, "approve", thread=asked)  # power 0 in this room
        await alice.wait_for(bot_message(room, asked, bot_id, body_has("you own none")))
        levels = await alice.client.room_get_state_event(room, "m.room.power_levels")
        content = dict(levels.content)  # type: ignore[union-attr]
        content["users"] = {**content.get("users", {}), bob.user_id: 50}
        await alice.client.room_put_state(room, "m.room.power_levels", content)
        await bob.say(room, "approve", thread=asked)  # now a moderator
        await alice.wait_for(bot_message(room, asked, bot_id, is_gate(PARAMS_STEP)), within=60)
        direct = await alice.client.room_create(invite=[bot_id], is_direct=True)
        dm = str(direct.room_id)  # type: ignore[union-attr]
        await alice.wait_for(
            lambda r, e: r == dm and e.get("state_key") == bot_id and "join" in str(e["content"])
        )
        in_dm = await alice.say(dm, REQUEST)
        await alice.wait_for(bot_message(dm, in_dm, bot_id, body_has("direct messages need")))
        entries = await runtime.audit.entries()
    assert decisions(entries) == {"template": bob.user_id}
    refusals = [e for e in entries if e.kind == "refusal"]
    assert any("you own none" in e.summary for e in refusals)
    assert any("direct messages" in e.summary for e in refusals)
