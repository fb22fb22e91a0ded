"""Who decides on Matrix, on a real Synapse with labbot as `labbot serve` runs it: power levels
count only in the room labbot was told has authority (a room someone creates for themselves
grants them nothing), a typed decision answers the step its author replied to, and a decision
counts only in the room of the step it names."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.audit.table import entry_summary
from bot.messages import NOTHING_PENDING, PREVIEW_CHANGED
from labsim import Lab
from tests.adapters.matrix.chat_user import ChatUser, Event
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
    body_has,
    is_gate,
    membership,
    shared_room,
    thread_message,
)
from tests.adapters.matrix.test_e2e_encrypted import MakeUser
from tests.fakes.synapse import MatrixAccount
from tests.support.masks import MASK
from workflow.ports import Inventory

pytestmark = pytest.mark.synapse


async def promote(owner: ChatUser, room: str, user_id: str, level: int) -> None:
    levels = await owner.client.room_get_state_event(room, "m.room.power_levels")
    content = dict(levels.content)  # type: ignore[union-attr]
    content["users"] = {**content.get("users", {}), user_id: level}
    await owner.client.room_put_state(room, "m.room.power_levels", content)


async def test_power_levels_count_only_in_the_authority_room(
    serve_labbot: ServeLabbot,
    bot_account: MatrixAccount,
    tmp_path: Path,
    alice: ChatUser,
    bob: ChatUser,
) -> None:
    bot_id = bot_account.user_id
    owners = tmp_path / "owners"
    owners.write_text("*  power>=50\n")  # the lab room's moderators own every device
    lab_room = await alice.create_room([bot_id, bob.user_id])
    await bob.join(lab_room)
    async with serve_labbot(owners=owners, matrix_authority_room=lab_room) as runtime:
        await alice.wait_for(membership(lab_room, bot_id, "join"))
        own = await shared_room(bob, bot_id, alice)  # bob's own room: power 100 there
        in_own, own_gate = await ask(alice, own, bot_id)
        await bob.say(own, "approve", thread=in_own.root, reply_to=own_gate["event_id"])
        await in_own.says("you own none")
        thread, template = await ask(alice, lab_room, bot_id)
        await bob.say(lab_room, "approve", thread=thread.root, reply_to=template["event_id"])
        await thread.says("you own none")  # power 0 in the lab room
        await promote(alice, lab_room, bob.user_id, 50)
        await bob.say(lab_room, "approve", thread=thread.root, reply_to=template["event_id"])
        await thread.gate(PARAMS_STEP)
        direct = await alice.client.room_create(invite=[bot_id], is_direct=True)
        dm = str(direct.room_id)  # type: ignore[union-attr]
        await alice.wait_for(membership(dm, bot_id, "join"))
        in_dm = BotThread(alice, dm, await alice.say(dm, REQUEST), bot_id)
        await in_dm.says("direct messages need")
        entries = await runtime.audit.entries()
    assert in_own.gates(PARAMS_STEP) == 0  # bob's power in his own room approved nothing
    assert decisions(entries) == {"template": bob.user_id}
    refusals = [e for e in entries if e.kind == "refusal"]
    assert {e.channel for e in refusals if "you own none" in entry_summary(e, MASK)} == {
        own,
        lab_room,
    }
    assert any("direct messages" in entry_summary(e, MASK) for e in refusals)


async def test_a_typed_execute_for_an_earlier_preview_is_refused_and_the_fresh_one_decides(
    serve_labbot: ServeLabbot,
    bot_account: MatrixAccount,
    lab: tuple[Lab, Inventory],
    alice: ChatUser,
    bob: ChatUser,
) -> None:
    bot_id = bot_account.user_id
    async with serve_labbot(approvers=[bob.user_id]) as runtime:
        room = await shared_room(alice, bot_id, bob)
        thread, template = await ask(alice, room, bot_id)
        await bob.react(room, template["event_id"], "✅")
        first = await thread.gate(PARAMS_STEP)
        await bob.say(room, "modify: area=1", thread=thread.root, reply_to=first["event_id"])
        fresh = await next_gate(thread, PARAMS_STEP, after=first)
        await bob.say(room, "execute", thread=thread.root, reply_to=first["event_id"])
        refused = await thread.says("the preview changed; look again")
        await bob.wait_for(thread_message(room, thread.root, bot_id, body_has("look again")))
        await bob.say(room, "execute", thread=thread.root)  # the thread fallback: after `fresh`
        await thread.says("pushed", within=120)
        entries = await runtime.audit.entries()
    assert refused["content"]["m.mentions"] == {"user_ids": [bob.user_id]}
    assert "area 1" in fresh["content"]["body"]
    for device in routers_of(lab[0]):
        assert "area 1" in device.running_config(), device.name
    pushed_with = [e for e in entries if e.kind == "resolved" and e.gate == "params"]
    assert [(e.actor_id, e.choice) for e in pushed_with] == [
        (bob.user_id, "modify"),
        (bob.user_id, "approve"),
    ]
    refusals = [e for e in entries if e.kind == "refusal"]
    assert [e.detail for e in refusals] == [PREVIEW_CHANGED]


async def next_gate(thread: BotThread, step: str, after: Event) -> Event:
    """The bot's gate of `step` posted after `after` in the thread."""

    def newer(event: Event) -> bool:
        return is_gate(step)(event) and event["event_id"] != after["event_id"]

    return await thread.watcher.wait_for(
        thread_message(thread.room, thread.root, thread.bot_id, newer)
    )


async def test_a_reply_or_reaction_in_another_room_decides_nothing(
    serve_labbot: ServeLabbot,
    bot_account: MatrixAccount,
    lab: tuple[Lab, Inventory],
    alice: ChatUser,
    e2e_user: MakeUser,
) -> None:
    bob = await e2e_user("bob")  # Synapse refuses a cross-room relation it can read, so: hidden
    bot_id = bot_account.user_id
    async with serve_labbot(approvers=[bob.user_id]) as runtime:
        lab_room = await shared_room(alice, bot_id)  # bob is not in it and never saw its step
        thread, template = await ask(alice, lab_room, bot_id)
        elsewhere = await shared_room(bob, bot_id, encrypted=True)
        root = await bob.say(elsewhere, "about alice's change")
        await bob.say(elsewhere, "approve", thread=root, reply_to=template["event_id"])
        await bob.send_encrypted_reaction(
            elsewhere, template["event_id"], "✅", relation_in_clear=False
        )
        await bob.say(elsewhere, "!labbot status", thread=root)  # answered after both
        await bob.wait_for(thread_message(elsewhere, root, bot_id, body_has(NOTHING_PENDING)))
        await alice.say(lab_room, "!labbot status", thread=thread.root)
        shown = await next_gate(thread, TEMPLATE_STEP, after=template)  # still the first step
        entries = await runtime.audit.entries()
    assert thread.gates(PARAMS_STEP) == 0
    assert "Approved by" not in shown["content"]["body"]
    assert decisions(entries) == {}
    assert not [e for e in entries if e.kind == "refusal"]
