"""The Matrix adapter in end-to-end encrypted rooms on a real Synapse, people on their own E2EE
clients, a recording handler in place of the bot: what is readable, what is on the wire, who is
trusted, and what happens when keys are missing or the store is lost."""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from adapters.chat import CodeBlock, Decision, Message, Request, ThreadRef
from adapters.matrix import e2ee
from tests.adapters.matrix.chat_user import ChatUser
from tests.adapters.matrix.recorder import MakeBot, recording
from tests.adapters.matrix.room_events import shared_room, thread_message
from tests.fakes.synapse import Synapse

pytestmark = pytest.mark.synapse
MakeUser = Callable[[str], Awaitable[ChatUser]]
# A Megolm event whose room key nobody ever shared.
LOST_KEY = {
    "algorithm": "m.megolm.v1.aes-sha2",
    "ciphertext": "AwgAEnACgAkLmt6qF84IK++J7UDH2Za1YVchHyprqTqsg",
    "device_id": "ALICEDEVICE",
    "sender_key": "IlRMeOPX2e0MurIyfWEucYBRVOEEUMrOHqn/8mLqMjA",
    "session_id": "X3lUlvLELLYxeTx4yOVu6UDpasGEVO0Jbu+QFnm0cKQ",
}


async def test_an_encrypted_room_works_like_a_plain_one_and_nothing_is_sent_in_clear(
    make_bot: MakeBot, e2e_user: MakeUser, synapse: Synapse
) -> None:
    alice, bob = await e2e_user("alice"), await e2e_user("bob")
    adapter = make_bot()
    async with recording(adapter) as recorder:
        bot_id = adapter.bot.user_id
        room = await shared_room(alice, bot_id, bob, encrypted=True)
        asked = await alice.say(room, "!labbot gate please")
        request = await recorder.next_event()
        gate = await alice.wait_for(thread_message(room, asked, bot_id))
        await bob.react(room, recorder.gate_ids[0], "✅")  # plain, as Element sends it
        reacted = await recorder.next_event(2)
        await bob.say(room, "modify: area 1 please", thread=asked, reply_to=recorder.gate_ids[0])
        replied = await recorder.next_event(3)
        thread = ThreadRef("matrix", room, asked)
        await adapter.update(thread, recorder.gate_ids[0], Message("gate", footer="✅ by bob"))
        edit = await alice.wait_for(
            lambda r, e: (e["content"].get("m.relates_to") or {}).get("rel_type") == "m.replace"
        )
    assert isinstance(request, Request) and request.text == "gate please"
    assert '<pre><code class="language-jinja">' in gate["content"]["formatted_body"]
    assert isinstance(reacted, Decision) and reacted.actor.id == bob.user_id
    assert (reacted.choice, reacted.untrusted_because) == ("approve", "")
    assert isinstance(replied, Decision) and replied.feedback == "area 1 please"
    assert "✅ by bob" in edit["content"]["m.new_content"]["body"]
    wire = alice.raw_events(room)
    said = [e for e in wire if "state_key" not in e and e["type"] != "m.reaction"]
    assert {e["type"] for e in said} == {"m.room.encrypted"}
    assert any(e["sender"] == bot_id for e in said)
    assert all("body" not in e["content"] for e in said)


async def test_a_message_the_bot_cannot_decrypt_is_answered_once_in_its_thread(
    make_bot: MakeBot, e2e_user: MakeUser
) -> None:
    alice = await e2e_user("alice")
    adapter = make_bot()
    async with recording(adapter):
        bot_id = adapter.bot.user_id
        room = await shared_room(alice, bot_id, encrypted=True)
        root = await alice.say(room, "hello")
        lost = {**LOST_KEY, "m.relates_to": {"rel_type": "m.thread", "event_id": root}}
        for _ in range(2):
            await alice.send_raw(room, "m.room.encrypted", lost)
        notice = await alice.wait_for(thread_message(room, root, bot_id))
        await alice.say(room, "!labbot ping", thread=root)  # anything after: has the bot spoken?
        await alice.wait_for(lambda r, e: "ping" in e.get("content", {}).get("body", ""))
    assert "could not decrypt" in notice["content"]["body"]
    answers = [e for e in alice.in_thread(room, root) if e["sender"] == bot_id]
    assert len(answers) == 1


async def test_a_message_whose_key_comes_late_is_handled_when_the_key_comes(
    make_bot: MakeBot, e2e_user: MakeUser
) -> None:
    alice = await e2e_user("alice")
    adapter = make_bot()
    async with recording(adapter) as recorder:
        bot_id = adapter.bot.user_id
        room = await shared_room(alice, bot_id, encrypted=True)
        asked, key = await alice.say_withholding_key(room, "!labbot gate after all")
        notice = await alice.wait_for(
            lambda r, e: r == room and "could not decrypt" in e["content"].get("body", "")
        )
        assert not recorder.events
        await alice.give_room_key(key, bot_id)
        request = await recorder.next_event()
    assert notice["sender"] == bot_id
    assert isinstance(request, Request) and request.text == "gate after all"
    assert request.thread == ThreadRef("matrix", room, asked)


async def test_without_the_e2e_extra_an_encrypted_room_is_told_labbot_cannot_read_it(
    make_bot: MakeBot, alice: ChatUser, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(e2ee, "E2EE_AVAILABLE", False)  # as if labbot[e2e] were not installed
    adapter = make_bot()
    async with recording(adapter):
        bot_id = adapter.bot.user_id
        room = await alice.create_room([bot_id], encrypted=True)
        await alice.wait_for(
            lambda r, e: r == room and e.get("state_key") == bot_id and e["type"] == "m.room.member"
        )
        await alice.send_raw(room, "m.room.encrypted", LOST_KEY)
        notice = await alice.wait_for(
            lambda r, e: (
                r == room
                and e.get("sender") == bot_id
                and "end-to-end encrypted" in e.get("content", {}).get("body", "")
            )
        )
    assert "labbot[e2e]" in notice["content"]["body"]


async def test_under_tofu_a_known_persons_new_device_is_trusted_and_changes_announced(
    make_bot: MakeBot, e2e_user: MakeUser, synapse: Synapse, tmp_path: Path
) -> None:
    alice = await e2e_user("alice")
    adapter = make_bot()
    async with recording(adapter) as recorder:
        bot_id = adapter.bot.user_id
        room = await shared_room(alice, bot_id, encrypted=True)
        await alice.say(room, "!labbot gate")
        await recorder.next_event()
        phone = ChatUser(synapse.url, synapse.login(alice.account), tmp_path / "alice-phone")
        await phone.start()
        try:
            warning = await alice.wait_for(
                lambda r, e: r == room and phone.device_id in e["content"].get("body", "")
            )
            await phone.react(room, recorder.gate_ids[0], "✅")
            await phone.send_encrypted_reaction(room, recorder.gate_ids[0], "❌")
            cancelled = await recorder.next_event(3)
            await phone.close(log_out=True)
            gone = await alice.wait_for(
                lambda r, e: r == room and "no longer has" in e["content"].get("body", "")
            )
        finally:
            await phone.close()
    assert "new device" in warning["content"]["body"]
    assert phone.device_id in gone["content"]["body"]
    assert isinstance(cancelled, Decision) and cancelled.untrusted_because == ""


async def test_after_losing_its_key_store_the_bot_warns_and_carries_on_as_a_new_device(
    make_bot: MakeBot, e2e_user: MakeUser, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    alice = await e2e_user("alice")
    first = make_bot()
    async with recording(first):
        room = await shared_room(alice, first.bot.user_id, encrypted=True)
        old_device = first._client.device_id
    for store in (tmp_path / "matrix").glob("*.db"):
        store.unlink()
    second = make_bot()
    with caplog.at_level(logging.WARNING):
        async with recording(second) as after:
            await alice.say(room, "!labbot gate after the loss")
            request = await after.next_event()
    assert second._client.device_id != old_device
    assert isinstance(request, Request) and request.text == "gate after the loss"
    assert any(
        "key store" in r.getMessage() and "is gone" in r.getMessage() for r in caplog.records
    )


async def test_under_verified_only_a_verified_device_is_vouched_for(
    make_bot: MakeBot, e2e_user: MakeUser
) -> None:
    alice = await e2e_user("alice")
    adapter = make_bot(trust="verified")
    async with recording(adapter) as recorder:
        room = await shared_room(alice, adapter.bot.user_id, encrypted=True)
        await alice.say(room, "!labbot gate")
        await recorder.next_event()
        await alice.react(room, recorder.gate_ids[0], "✅")
        plain = await recorder.next_event(2)
        await alice.send_encrypted_reaction(room, recorder.gate_ids[0], "✅")
        unverified = await recorder.next_event(3)
    assert isinstance(plain, Decision) and "not encrypted" in plain.untrusted_because
    assert isinstance(unverified, Decision)
    assert f"device {alice.device_id}, which is not verified" in unverified.untrusted_because


async def test_long_output_fits_encrypted_events_and_every_part_reads(
    make_bot: MakeBot, e2e_user: MakeUser
) -> None:
    alice = await e2e_user("alice")
    adapter = make_bot()
    async with recording(adapter):
        bot_id = adapter.bot.user_id
        room = await shared_room(alice, bot_id, encrypted=True)
        root = await alice.say(room, "hello")
        # Characters HTML escaping grows, and some outside ASCII: the worst case for the size.
        output = "\n".join(f"line {n:05d} <&> ü " + "x" * 50 for n in range(1500))
        thread = ThreadRef("matrix", room, root)
        await adapter.post(thread, Message("big", blocks=(CodeBlock(output, "text"),)))
        await alice.wait_for(lambda r, e: "line 01499" in e["content"].get("body", ""))
    parts = [e for e in alice.in_thread(room, root) if e["sender"] == bot_id]
    wire = [e for e in alice.raw_events(room) if e["sender"] == bot_id and "state_key" not in e]
    assert len(parts) >= 6
    assert all(len(json.dumps(e).encode()) < 65_536 for e in wire)
    shown = "".join(p["content"]["formatted_body"] for p in parts)
    assert all(f"line {n:05d} &lt;&amp;&gt; ü " in shown for n in (0, 777, 1499))
