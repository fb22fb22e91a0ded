"""Matrix events -> requests, replies and reactions: table-driven over client-server JSON."""

from __future__ import annotations

from typing import Any

import pytest

from adapters.chat import Actor, Decision, Request, ThreadRef, button_value
from adapters.matrix import inbound
from adapters.matrix.inbound import BotIdentity, GateRef, Reaction, Reply

BOT = BotIdentity("@labbot:hs", "labbot")
ALICE = Actor("@alice:hs", "Alice")
ROOM = "!room:hs"
SHA = "b" * 64


def message(
    body: str,
    *,
    thread: str = "",
    reply_to: str = "",
    extra: dict[str, Any] | None = None,
    **content: str,
) -> dict[str, Any]:
    event: dict[str, Any] = {
        "type": "m.room.message",
        "event_id": "$ev",
        "sender": ALICE.id,
        "origin_server_ts": 1000,
        "content": {"msgtype": "m.text", "body": body, **content, **(extra or {})},
    }
    if thread:
        event["content"]["m.relates_to"] = {
            "rel_type": "m.thread",
            "event_id": thread,
            "is_falling_back": not reply_to,
            "m.in_reply_to": {"event_id": reply_to or thread},
        }
    return event


def reaction(key: str, target: str = "$gate") -> dict[str, Any]:
    return {
        "type": "m.reaction",
        "event_id": "$re",
        "sender": ALICE.id,
        "content": {"m.relates_to": {"rel_type": "m.annotation", "event_id": target, "key": key}},
    }


NEW_THREAD = ThreadRef("matrix", ROOM, "$ev")
IN_THREAD = ThreadRef("matrix", ROOM, "$root")


@pytest.mark.parametrize(
    ("event", "expected"),
    [
        (message("!labbot configure ospf"), Request(NEW_THREAD, ALICE, "configure ospf")),
        (message("!LABBOT help"), Request(NEW_THREAD, ALICE, "help")),
        (message("labbot: audit user=bob"), Request(NEW_THREAD, ALICE, "audit user=bob")),
        (message("@labbot:hs, status"), Request(NEW_THREAD, ALICE, "status")),
        (
            message(
                "Lab Helper: configure ntp",
                format="org.matrix.custom.html",
                formatted_body=(
                    '<a href="https://matrix.to/#/@labbot:hs">Lab Helper</a>: configure ntp'
                ),
                extra={"m.mentions": {"user_ids": ["@labbot:hs"]}},
            ),
            Request(NEW_THREAD, ALICE, "configure ntp"),
        ),
        (
            message("please @labbot:hs configure ntp"),
            Request(NEW_THREAD, ALICE, "please configure ntp"),
        ),
        (
            message("!labbot audit", thread="$root"),
            Request(IN_THREAD, ALICE, "audit"),
        ),
        (
            message("approve", thread="$root", reply_to="$gate"),
            Reply(IN_THREAD, ALICE, "approve", None, replies_to="$gate"),
        ),
        (
            message("Execute", thread="$root"),  # the thread fallback: its latest event
            Reply(IN_THREAD, ALICE, "approve", None, replies_to="$root"),
        ),
        (
            message("cancel", thread="$root", reply_to="$note"),
            Reply(IN_THREAD, ALICE, "cancel", None, replies_to="$note"),
        ),
        (
            message("modify: use area 1\nand md5", thread="$root", reply_to="$gate"),
            Reply(IN_THREAD, ALICE, "modify", "use area 1\nand md5", replies_to="$gate"),
        ),
        (
            message("> <@bob:hs> the gate\n\nlabbot: execute", thread="$root", reply_to="$gate"),
            Reply(IN_THREAD, ALICE, "approve", None, addressed=True, replies_to="$gate"),
        ),
        (reaction("✅"), Reaction(ROOM, ALICE, "$gate", "approve")),
        (reaction("✅️"), Reaction(ROOM, ALICE, "$gate", "approve")),
        (reaction("✏️"), Reaction(ROOM, ALICE, "$gate", "modify")),
        (reaction("✏"), Reaction(ROOM, ALICE, "$gate", "modify")),
        (reaction("❌"), Reaction(ROOM, ALICE, "$gate", "cancel")),
    ],
)
def test_events_addressed_to_the_bot(event: dict[str, Any], expected: object) -> None:
    assert inbound.translate(ROOM, event, ALICE, BOT) == expected


@pytest.mark.parametrize(
    "event",
    [
        pytest.param(message("configure ospf please"), id="not addressed"),
        pytest.param(message("labbotty: hello"), id="another name starting alike"),
        pytest.param(message("!labbotx run"), id="another prefix"),
        pytest.param(message("approve"), id="decision word outside a thread"),
        pytest.param(message("cancel the ntp part", thread="$root"), id="a sentence in a thread"),
        pytest.param(message("looks good", thread="$root"), id="chatter in a thread"),
        pytest.param({**message("!labbot help"), "sender": BOT.user_id}, id="the bot itself"),
        pytest.param(message("!labbot help", msgtype="m.notice"), id="a notice from a bot"),
        pytest.param(
            message("!labbot configure", extra={"m.new_content": {"body": "x"}}), id="an edit"
        ),
        pytest.param({**reaction("✅"), "sender": BOT.user_id}, id="the bot's own reaction"),
        pytest.param(reaction("👍"), id="another emoji"),
        pytest.param(
            {**reaction("✅"), "unsigned": {"redacted_because": {"type": "m.room.redaction"}}},
            id="a redacted reaction",
        ),
        pytest.param({**reaction("✅"), "content": {}}, id="a reaction redacted to nothing"),
        pytest.param({"type": "m.room.member", "content": {"membership": "join"}}, id="state"),
    ],
)
def test_events_that_are_nothing_to_the_bot(event: dict[str, Any]) -> None:
    assert inbound.translate(ROOM, event, ALICE, BOT) is None


def test_a_redaction_in_the_same_batch_cancels_the_reaction() -> None:
    batch = [
        reaction("✅"),
        {"type": "m.room.redaction", "event_id": "$x", "redacts": "$re", "content": {}},
        {"type": "m.room.redaction", "event_id": "$y", "content": {"redacts": "$other"}},
    ]
    assert inbound.redacted_ids(batch) == {"$re", "$other"}


def test_events_before_the_start_are_backlog() -> None:
    assert not inbound.is_fresh(message("!labbot help"), since_ms=1001)
    assert inbound.is_fresh(message("!labbot help"), since_ms=1000)


def gate_event(sender: str = BOT.user_id, value: str = "") -> dict[str, Any]:
    event = message("Step 1", thread="$root", msgtype="m.notice")
    event["sender"] = sender
    event["event_id"] = "$gate"
    event["content"]["org.labbot.gate"] = {
        "value": value or button_value("int-7", SHA),
        "choices": {"approve": "Execute", "modify": "Modify", "cancel": "Cancel"},
    }
    return event


def test_a_gate_is_recovered_from_the_bot_message_alone() -> None:
    gate = inbound.gate_ref(ROOM, gate_event(), BOT.user_id)
    assert gate == GateRef(
        IN_THREAD, "$gate", button_value("int-7", SHA), ("approve", "modify", "cancel")
    )
    reply = inbound.Reply(IN_THREAD, ALICE, "modify", "area 1", untrusted_because="unverified")
    assert inbound.decision(gate, reply) == Decision(
        IN_THREAD,
        ALICE,
        "int-7",
        "modify",
        SHA,
        "area 1",
        message_id="$gate",
        untrusted_because="unverified",
        typed=True,
    )


@pytest.mark.parametrize(
    "event",
    [
        pytest.param(gate_event(sender=ALICE.id), id="forged by a user"),
        pytest.param(gate_event(value="int-7|short"), id="not a button value"),
        pytest.param(message("hello", thread="$root"), id="an ordinary message"),
    ],
)
def test_only_bot_messages_with_a_valid_marker_are_gates(event: dict[str, Any]) -> None:
    assert inbound.gate_ref(ROOM, event, BOT.user_id) is None
