"""The Matrix adapter against a real Synapse, with a recording handler in place of the bot.

What people see in the room (threads, code blocks, reactions, edits) and what the bot receives
(requests, decisions) — including after a restart and in rooms it must not serve.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from pathlib import Path

import pytest

from adapters.chat import (
    CodeBlock,
    Decision,
    FileAttachment,
    FilesNotAttached,
    Message,
    Request,
    ThreadRef,
)
from tests.adapters.matrix.chat_user import ChatUser
from tests.adapters.matrix.recorder import GATE, GATE_VALUE, SHA, MakeBot, recording
from tests.adapters.matrix.room_events import (
    body_has,
    membership,
    reaction_by,
    shared_room,
    thread_message,
)
from tests.fakes.synapse import MAX_UPLOAD_BYTES, MatrixAccount, Synapse

pytestmark = pytest.mark.synapse


async def test_a_mention_is_a_request_answered_in_its_thread_with_code_blocks(
    make_bot: MakeBot, alice: ChatUser
) -> None:
    adapter = make_bot()
    async with recording(adapter) as recorder:
        bot_id = adapter.bot.user_id
        room = await shared_room(alice, bot_id)
        asked = await alice.say(room, f"{adapter.bot.name}: gate please")
        request = await recorder.next_event()
        assert request == Request(ThreadRef("matrix", room, asked), request.actor, "gate please")
        assert request.actor.id == alice.user_id
        gate = await alice.wait_for(thread_message(room, asked, bot_id))
        for key in ("✅", "✏️", "❌"):
            await alice.wait_for(reaction_by(bot_id, gate["event_id"], key))
    content = gate["content"]
    assert (
        '<pre><code class="language-jinja">interface {{ name }}</code></pre>'
        in (content["formatted_body"])
    )
    assert "<strong>Step 1 of 2 — template</strong>" in content["formatted_body"]
    assert "```jinja\ninterface {{ name }}\n```" in content["body"]
    assert content["m.relates_to"]["is_falling_back"] is True
    assert content["m.relates_to"]["m.in_reply_to"] == {"event_id": asked}
    assert content["org.labbot.gate"]["value"] == GATE_VALUE


async def test_prefix_reaction_and_thread_reply_are_decisions_on_the_gate(
    make_bot: MakeBot, alice: ChatUser, bob: ChatUser
) -> None:
    adapter = make_bot()
    async with recording(adapter) as recorder:
        room = await shared_room(alice, adapter.bot.user_id, bob)
        asked = await alice.say(room, "!labbot gate")
        await recorder.next_event()
        await bob.react(room, recorder.gate_ids[0], "✅")
        approved = await recorder.next_event(2)
        await bob.say(room, "modify: area 1 please", thread=asked, reply_to=recorder.gate_ids[0])
        modified = await recorder.next_event(3)
        await asyncio.sleep(0.5)  # the bot's own three reactions must not have counted
    assert approved == Decision(
        ThreadRef("matrix", room, asked),
        approved.actor,
        "int-1",
        "approve",
        SHA,
        message_id=recorder.gate_ids[0],
    )
    assert approved.actor.id == bob.user_id
    assert isinstance(modified, Decision)
    assert (modified.choice, modified.feedback) == ("modify", "area 1 please")
    assert len(recorder.events) == 3


async def test_a_pencil_reaction_asks_for_the_change_in_words(
    make_bot: MakeBot, alice: ChatUser
) -> None:
    adapter = make_bot()
    async with recording(adapter) as recorder:
        bot_id = adapter.bot.user_id
        room = await shared_room(alice, bot_id)
        asked = await alice.say(room, "!labbot gate")
        await recorder.next_event()
        await alice.react(room, recorder.gate_ids[0], "✏️")
        question = await alice.wait_for(
            lambda r, e: (
                thread_message(room, asked, bot_id)(r, e)
                and "modify: <what to change>" in e["content"]["body"]
                and "What should change" in e["content"]["body"]
            )
        )
    assert question["content"]["m.mentions"] == {"user_ids": [alice.user_id]}
    assert len(recorder.events) == 1  # no decision without the feedback


async def test_long_output_is_split_and_updates_edit_the_first_event(
    make_bot: MakeBot, alice: ChatUser
) -> None:
    adapter = make_bot()
    async with recording(adapter):
        bot_id = adapter.bot.user_id
        room = await shared_room(alice, bot_id)
        root = await alice.say(room, "hello")
        thread = ThreadRef("matrix", room, root)
        output = "\n".join(f"line {n:05d} " + "x" * 60 for n in range(1500))
        first = await adapter.post(thread, Message("big", blocks=(CodeBlock(output, "text"),)))
        await adapter.update(thread, first, Message("big", footer="✅ Approved by bob"))
        edit = await alice.wait_for(
            lambda r, e: (e["content"].get("m.relates_to") or {}).get("rel_type") == "m.replace"
        )
        await asyncio.sleep(0.3)
    parts = alice.in_thread(room, root)
    assert len(parts) >= 6
    assert all(len(json.dumps(p["content"]).encode()) < 65_536 for p in parts)
    shown = "".join(p["content"]["formatted_body"] for p in parts)
    assert all(f"line {n:05d} " in shown for n in (0, 777, 1499))
    assert edit["content"]["m.relates_to"]["event_id"] == first
    assert "Approved by bob" in edit["content"]["m.new_content"]["body"]


async def test_a_gate_is_closed_as_it_was_shown_also_after_a_restart(
    make_bot: MakeBot, alice: ChatUser
) -> None:
    first = make_bot()
    async with recording(first) as recorder:
        room = await shared_room(alice, first.bot.user_id)
        threads = [ThreadRef("matrix", room, await alice.say(room, "!labbot gate"))]
        await recorder.next_event()
        await first.close_gate(threads[0], recorder.gate_ids[0], "✅ Approved by bob")
        threads.append(ThreadRef("matrix", room, await alice.say(room, "!labbot gate")))
        await recorder.next_event(2)
    second = make_bot()  # knows the second gate only from the room
    async with recording(second):
        await second.close_gate(threads[1], recorder.gate_ids[1], "❌ Cancelled by bob")
        edits = [
            await alice.wait_for(
                lambda r, e, gate=gate: (
                    "m.new_content" in e["content"]
                    and e["content"]["m.relates_to"].get("event_id") == gate
                )
            )
            for gate in recorder.gate_ids
        ]
    for edit, footer in zip(edits, ("✅ Approved by bob", "❌ Cancelled by bob"), strict=True):
        new = edit["content"]["m.new_content"]
        assert footer in new["body"] and "React" not in new["body"]
        assert "Step 1 of 2" in new["body"] and "interface {{ name }}" in new["formatted_body"]
        assert "org.labbot.gate" not in new


async def test_after_a_restart_old_gates_still_decide_and_old_requests_are_not_replayed(
    make_bot: MakeBot, alice: ChatUser, bob: ChatUser, tmp_path: Path
) -> None:
    first = make_bot()
    async with recording(first) as recorder:
        room = await shared_room(alice, first.bot.user_id, bob)
        asked = await alice.say(room, "!labbot gate")
        await recorder.next_event()
    device = json.loads((tmp_path / "matrix" / "session.json").read_text())["device_id"]

    second = make_bot()
    async with recording(second) as after:
        assert second._client.device_id == device  # the same device, not a new login
        await bob.react(room, recorder.gate_ids[0], "❌")
        cancelled = await after.next_event()
        await bob.say(room, "approve", thread=asked, reply_to=recorder.gate_ids[0])
        approved = await after.next_event(2)
        await asyncio.sleep(0.5)
    assert isinstance(cancelled, Decision) and isinstance(approved, Decision)
    assert (cancelled.choice, cancelled.interrupt_id, cancelled.message_id) == (
        "cancel",
        "int-1",
        recorder.gate_ids[0],
    )
    assert (approved.choice, approved.thread.thread) == ("approve", asked)
    assert len(after.events) == 2  # "!labbot gate" was not replayed


async def test_rooms_outside_the_allow_list_are_declined_and_ignored(
    make_bot: MakeBot, alice: ChatUser, synapse: Synapse, bot_account: MatrixAccount
) -> None:
    served = await alice.create_room([])
    other = await alice.create_room([])
    adapter = make_bot(rooms=(served,))
    bot_id = bot_account.user_id
    # Already a member of `other` from an earlier configuration: its events must be ignored.
    await alice.client.room_invite(other, bot_id)
    joined_elsewhere = ChatUser(synapse.url, bot_account)
    await joined_elsewhere.join(other)
    await joined_elsewhere.client.close()
    await alice.client.room_invite(served, bot_id)
    async with recording(adapter) as recorder:
        invited = await alice.create_room([bot_id])
        await alice.say(other, "!labbot gate in the wrong room")
        await alice.say(served, "!labbot gate in the right room")
        request = await recorder.next_event()
        await alice.wait_for(membership(invited, bot_id, "leave"))
        await asyncio.sleep(0.5)
    assert isinstance(request, Request) and request.thread.channel == served
    assert len(recorder.events) == 1


async def test_a_reply_sent_before_its_gate_was_shown_decides_nothing(
    make_bot: MakeBot, alice: ChatUser, bob: ChatUser
) -> None:
    adapter = make_bot()
    async with recording(adapter) as recorder:
        bot_id = adapter.bot.user_id
        room = await shared_room(alice, bot_id, bob)
        asked = await alice.say(room, "!labbot gate")
        await bob.say(room, "execute", thread=asked)  # replies to the request: no gate seen
        asked_back = await bob.wait_for(thread_message(room, asked, bot_id, body_has("Which step")))
        await bob.say(room, "execute", thread=asked, reply_to=recorder.gate_ids[0])
        decided = await recorder.next_event(2)
    assert asked_back["content"]["m.mentions"] == {"user_ids": [bob.user_id]}
    assert isinstance(decided, Decision)
    assert (decided.choice, decided.message_id, decided.typed) == (
        "approve",
        recorder.gate_ids[0],
        True,
    )
    assert len(recorder.events) == 2


async def test_a_picture_is_an_m_image_in_the_thread_from_the_media_repository(
    make_bot: MakeBot, alice: ChatUser
) -> None:
    adapter = make_bot()
    png = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8
    picture = FileAttachment(
        "topology.png", png, "image/png", image=True, alt="Lab", width=800, height=600
    )
    async with recording(adapter):
        bot_id = adapter.bot.user_id
        room = await shared_room(alice, bot_id)
        root = await alice.say(room, "hello")
        await adapter.post(ThreadRef("matrix", room, root), Message("R1", files=(picture,)))
        image = await alice.wait_for(lambda r, e: e.get("content", {}).get("msgtype") == "m.image")
        downloaded = await alice.client.download(image["content"]["url"])
    content = image["content"]
    assert content["m.relates_to"]["rel_type"] == "m.thread"
    assert content["m.relates_to"]["event_id"] == root
    assert content["info"] == {"mimetype": "image/png", "size": len(png), "w": 800, "h": 600}
    assert getattr(downloaded, "body", None) == png  # what Synapse's media repository serves


async def test_a_picture_the_media_repository_refuses_leaves_the_gate_in_the_thread(
    make_bot: MakeBot, alice: ChatUser
) -> None:
    """Synapse refuses the upload (over its max_upload_size): the gate is in the thread with
    its reactions, and the caller hears which file did not go."""
    adapter = make_bot()
    too_big = FileAttachment("topology.png", bytes(MAX_UPLOAD_BYTES + 1), "image/png", image=True)
    async with recording(adapter):
        room = await shared_room(alice, adapter.bot.user_id)
        root = await alice.say(room, "hello")
        with pytest.raises(FilesNotAttached) as refused:
            await adapter.post(ThreadRef("matrix", room, root), replace(GATE, files=(too_big,)))
        gate_id = refused.value.message_id
        await alice.wait_for(reaction_by(adapter.bot.user_id, gate_id, "❌"))
        gate = await alice.read(room, gate_id)
    assert refused.value.names == ("topology.png",)
    assert "M_TOO_LARGE" in str(refused.value)
    assert gate["content"]["m.relates_to"]["event_id"] == root
    assert "Step 1 of 2" in gate["content"]["body"]
    assert not [e for e in alice.in_thread(room, root) if e["content"].get("msgtype") == "m.image"]
