"""Many labs on Matrix, on a real Synapse: a labs file maps one room by its alias and another by
its id to two simulated labs with the same router names. A change asked in each room runs on
that room's lab only (every audit row naming it); a room that is no lab's is told so in one
line (bot.runtime.lab_router, MatrixAdapter.place_names). An agent's change for the lab written
by its alias opens in that room, by its id (MatrixAdapter.place_id)."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from adapters.matrix.adapter import MatrixAdapter
from bot.policy.agent_principals import token_hash
from bot.runtime.agent_tools import agent_labs
from bot.runtime.lab_router import LabRouter, open_lab_router
from bot.runtime.serve_matrix import make_adapter
from tests.adapters.matrix.chat_user import ChatUser, running
from tests.adapters.matrix.labbot_harness import (
    PARAMS_STEP,
    REQUEST,
    TEMPLATE_STEP,
    BotThread,
    ask,
    labbot_settings,
    routers_of,
)
from tests.adapters.matrix.room_events import membership
from tests.adapters.mcp.agent_stack import AGENT, TOKEN, agent_session, call, endpoint_on
from tests.fakes.synapse import MatrixAccount, Synapse
from tests.support.two_labs import two_labs

pytestmark = pytest.mark.synapse


@asynccontextmanager
async def serving_labs(
    synapse: Synapse, bot: MatrixAccount, tmp_path: Path, labs_file: str
) -> AsyncIterator[LabRouter]:
    """labbot as `labbot serve` runs it with LABBOT_LABS: the Matrix adapter, the router over
    each lab's runtime, the sync loop."""
    path = tmp_path / "labs.yaml"
    path.write_text(labs_file)
    settings = labbot_settings(synapse, bot, tmp_path, labs=path)
    adapter: MatrixAdapter = await make_adapter(settings, http=False, host="127.0.0.1", port=0)
    async with open_lab_router(settings, adapter) as router, running(adapter, router.handle):
        yield router


async def changed(asker: ChatUser, approver: ChatUser, room: str, bot_id: str, count: int) -> None:
    """Ask for the change in `room`, approve and execute it; the bot says all were pushed."""
    thread, template = await ask(asker, room, bot_id)
    await approver.react(room, template["event_id"], "✅")
    params = await thread.gate(PARAMS_STEP)
    await approver.say(room, "execute", thread=thread.root, reply_to=params["event_id"])
    await thread.says("pushed", f"✓ {count} ✗ 0 of {count}", within=120)


async def test_a_room_changes_the_lab_it_is_mapped_to(
    synapse: Synapse, bot_account: MatrixAccount, tmp_path: Path, alice: ChatUser, bob: ChatUser
) -> None:
    bot_id, server = bot_account.user_id, bot_account.user_id.split(":", 1)[1]
    alias = f"red-lab-{secrets.token_hex(4)}"  # one Synapse for the session: an alias of its own
    rooms = {
        "red": await alice.create_room([bot_id, bob.user_id], alias=alias),
        "blue": await alice.create_room([bot_id, bob.user_id]),
        "none": await alice.create_room([bot_id]),
    }
    for room in ("red", "blue"):
        await bob.join(rooms[room])
    labs_file = f"""\
labs:
  red:
    inventory: red/hosts.yaml
    matrix: "#{alias}:{server}"
    approvers: ["{bob.user_id}"]
  blue:
    inventory: blue/hosts.yaml
    matrix: "{rooms["blue"]}"
    approvers: ["{bob.user_id}"]
"""
    async with (
        two_labs(tmp_path) as labs,
        serving_labs(synapse, bot_account, tmp_path, labs_file) as router,
    ):
        for room in rooms.values():  # invited before it started: joined on its first sync
            await alice.wait_for(membership(room, bot_id, "join"))

        await changed(alice, bob, rooms["red"], bot_id, count=3)  # by its alias
        assert all("router ospf" in d.running_config() for d in routers_of(labs["red"]))
        assert not any("router ospf" in d.running_config() for d in routers_of(labs["blue"]))
        await changed(alice, bob, rooms["blue"], bot_id, count=2)  # by its id
        assert all("router ospf" in d.running_config() for d in routers_of(labs["blue"]))

        await alice.say(rooms["none"], REQUEST)
        told = await alice.wait_for(
            lambda room, event: (
                room == rooms["none"]
                and event.get("sender") == bot_id
                and event.get("type") == "m.room.message"
                and "no lab's" in event["content"]["body"]
            )
        )
        assert told["content"]["body"].count("\n") == 0, told
        assert "this room is no lab's" in told["content"]["body"]

        entries = await router.runtimes["red"].audit.entries()
    pushes = sorted((e.lab, e.device) for e in entries if e.kind == "push")
    assert pushes == [("blue", "R1"), ("blue", "R2"), ("red", "R1"), ("red", "R2"), ("red", "R3")]
    changes = {e.change_id: e.lab for e in entries if e.kind == "change"}
    assert sorted(changes.values()) == ["blue", "red"]
    assert all(e.lab == changes[e.change_id] for e in entries if e.change_id)
    asked_in = {(e.lab, e.platform, e.channel) for e in entries if e.kind == "change"}
    assert asked_in == {("red", "matrix", rooms["red"]), ("blue", "matrix", rooms["blue"])}


async def test_an_agents_change_opens_in_its_labs_room_written_by_alias(
    synapse: Synapse, bot_account: MatrixAccount, tmp_path: Path, alice: ChatUser, bob: ChatUser
) -> None:
    """LABBOT_MCP_CHANNEL is blue's room (blue takes every agent); red, written by its alias,
    names the agent in `agents:`. The agent's change for red opens in red's room (the alias
    resolved to its id), where its template gate waits; without `lab` it is told to name one."""
    bot_id, server = bot_account.user_id, bot_account.user_id.split(":", 1)[1]
    alias = f"agents-red-{secrets.token_hex(4)}"
    rooms = {
        "red": await alice.create_room([bot_id, bob.user_id], alias=alias),
        "blue": await alice.create_room([bot_id, bob.user_id]),
    }
    labs_file = f"""\
labs:
  red:
    inventory: red/hosts.yaml
    matrix: "#{alias}:{server}"
    approvers: ["{bob.user_id}"]
    agents: [{AGENT}]
  blue:
    inventory: blue/hosts.yaml
    matrix: "{rooms["blue"]}"
    approvers: ["{bob.user_id}"]
"""
    (tmp_path / "labs.yaml").write_text(labs_file)
    agents = {"mcp_agents": f"{AGENT}={alice.user_id} {token_hash(TOKEN)}"}
    settings = labbot_settings(
        synapse,
        bot_account,
        tmp_path,
        labs=tmp_path / "labs.yaml",
        mcp_channel=f"matrix:{rooms['blue']}",
        **agents,
    )
    adapter: MatrixAdapter = await make_adapter(settings, http=False, host="127.0.0.1", port=0)
    async with (
        two_labs(tmp_path),
        open_lab_router(settings, adapter) as router,
        running(adapter, router.handle),
    ):
        for room in rooms.values():
            await alice.wait_for(membership(room, bot_id, "join"))
        async with (
            endpoint_on(settings, await agent_labs(settings, router)) as url,
            agent_session(url) as agent,
        ):
            unnamed = await call(agent, "lab")
            opened = await call(agent, "request_change", text=REQUEST, lab="red")
            root = await alice.wait_for(
                lambda room, event: (
                    event.get("sender") == bot_id
                    and event.get("type") == "m.room.message"
                    and "m.relates_to" not in event.get("content", {})
                    and AGENT in event.get("content", {}).get("body", "")
                )
            )
            thread = BotThread(alice, rooms["red"], root["event_id"], bot_id)
            await thread.gate(TEMPLATE_STEP)
        entries = await router.runtimes["red"].audit.entries()
    assert unnamed["error"] == f"{AGENT} works in several labs (red, blue): name one as `lab`"
    assert opened["metadata"]["lab"] == "red" and opened["metadata"]["state"] == "open"
    assert rooms["red"][1:] in opened["metadata"]["thread"]  # the room's id, not its alias
    (change,) = [e for e in entries if e.kind == "change"]
    assert (change.lab, change.channel) == ("red", rooms["red"])
    calls = [(e.gate, e.lab) for e in entries if e.kind == "agent"]
    assert calls == [("lab", ""), ("request_change", "red")]
