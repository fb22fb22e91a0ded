"""An AI agent whose changes open in an end-to-end encrypted Matrix room of a real Synapse: the
official MCP client on `labbot serve`'s endpoint asks, the thread opens in the room
(LABBOT_MCP_CHANNEL=matrix:ROOM), the people there decide with reactions, and the agent's
principal counts as the requester."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from bot.policy.agent_principals import token_hash
from labsim import Lab
from tests.adapters.matrix.chat_user import ChatUser, Event
from tests.adapters.matrix.labbot_harness import (
    PARAMS_STEP,
    TEMPLATE_STEP,
    BotThread,
    decisions,
    labbot,
    labbot_settings,
    routers_of,
)
from tests.adapters.matrix.room_events import shared_room
from tests.adapters.mcp.agent_stack import AGENT, TOKEN, agent_session, call, endpoint_on
from tests.fakes.synapse import MatrixAccount, Synapse
from workflow.ports import Inventory

pytestmark = pytest.mark.synapse
MakeUser = Callable[[str], Awaitable[ChatUser]]


def _root_naming_agent(room_id: str, bot_id: str) -> Callable[[str, Event], bool]:
    """The bot's first message of an agent's change: a new thread's root naming the agent."""

    def matches(room: str, event: Event) -> bool:
        content = event.get("content", {})
        return (
            room == room_id
            and event.get("sender") == bot_id
            and event.get("type") == "m.room.message"
            and "m.relates_to" not in content
            and AGENT in content.get("body", "")
        )

    return matches


async def test_an_agent_asks_in_an_encrypted_room_and_only_someone_else_there_decides(
    synapse: Synapse,
    bot_account: MatrixAccount,
    lab: tuple[Lab, Inventory],
    e2e_user: MakeUser,
    tmp_path: Path,
) -> None:
    alice, bob = await e2e_user("alice"), await e2e_user("bob")
    bot_id = bot_account.user_id
    sim, inventory = lab
    async with labbot(labbot_settings(synapse, bot_account, tmp_path), inventory):
        room = await shared_room(alice, bot_id, bob, encrypted=True)  # the bot joins it
    settings = labbot_settings(
        synapse,
        bot_account,
        tmp_path,
        mcp_agents=f"{AGENT}={alice.user_id} {token_hash(TOKEN)}",  # alice asks through it
        mcp_channel=f"matrix:{room}",
    )
    async with (
        labbot(settings, inventory) as runtime,
        endpoint_on(settings, runtime) as url,
        agent_session(url) as agent,
    ):
        opened = await call(agent, "request_change", text="configure ospf on all routers")
        change_id = opened["metadata"]["change_id"]
        root = await bob.wait_for(_root_naming_agent(room, bot_id))
        thread = BotThread(bob, room, root["event_id"], bot_id)
        template = await thread.gate(TEMPLATE_STEP)
        await alice.react(room, template["event_id"], "✅")  # the principal: the requester
        refusal = await thread.says("Refused")
        await bob.react(room, template["event_id"], "✅")
        params = await thread.gate(PARAMS_STEP)
        await bob.react(room, params["event_id"], "✅")
        waited = await call(agent, "wait_for_change", change_id=change_id, seconds=120)
        entries = await runtime.audit.entries()
    assert f"asks on behalf of {alice.user_id}" in root["content"]["body"]
    assert "you requested this change; someone else must approve it" in refusal["content"]["body"]
    assert refusal["content"]["m.mentions"] == {"user_ids": [alice.user_id]}
    assert waited["success"] and waited["metadata"]["state"] == "done"
    bob_shown = f"{bob.user_id[1:].split(':')[0]} ({bob.user_id})"
    assert waited["metadata"]["approvers"] == {"template": [bob_shown], "params": [bob_shown]}
    for device in routers_of(sim):
        assert "router ospf" in device.running_config(), device.name
    assert decisions(entries) == {"template": bob.user_id, "params": bob.user_id}
    assert [e.actor_id for e in entries if e.kind == "refusal"] == [alice.user_id]
