import json

import pytest

from adapters.chat import Actor, Decision, Request, ThreadRef
from adapters.slack import inbound
from tests.adapters.slack.payloads import fixture

BOB = Actor("U2", "Bob")
ZERO = "0" * 64


@pytest.mark.parametrize(
    ("text", "request_text"),
    [
        ("<@UBOT> configure ospf on all routers", "configure ospf on all routers"),
        ("<@UBOT|labbot>   audit  user=U2", "audit user=U2"),
        ("hey <@UBOT> status", "hey status"),
        ("<@UBOT>", "help"),
        ("<@U9> please review", "<@U9> please review"),
    ],
)
def test_mention_text(text: str, request_text: str) -> None:
    assert inbound.mention_text(text, "UBOT") == request_text


def test_mention_starts_a_thread_on_its_own_message() -> None:
    body = fixture("app_mention")
    request = inbound.request_from_event(body["event"], Actor("U1", "alice"), "UBOT")
    assert request == Request(
        ThreadRef("slack", "C1", "1699999999.000100"),
        Actor("U1", "alice"),
        "configure ospf on all routers",
    )


def test_mention_in_a_thread_continues_that_thread() -> None:
    event = fixture("app_mention")["event"] | {
        "thread_ts": "1699999000.000001",
        "text": "<@UBOT> audit",
    }
    request = inbound.request_from_event(event, BOB, "UBOT")
    assert request.thread.key == "slack:C1:1699999000.000001"
    assert request.text == "audit"


@pytest.mark.parametrize(
    ("change", "direct"),
    [
        ({}, True),
        ({"subtype": "message_changed"}, False),
        ({"bot_id": "BBOT"}, False),
        ({"channel_type": "channel"}, False),
    ],
)
def test_direct_messages_are_only_peoples_own(change: dict, direct: bool) -> None:
    assert inbound.is_direct_message(fixture("message_im")["event"] | change) is direct


def test_click_becomes_a_decision_on_the_clicked_message() -> None:
    decision = inbound.decision_from_action(fixture("block_actions"), BOB)
    assert decision == Decision(
        thread=ThreadRef("slack", "C1", "1699999999.000100"),
        actor=BOB,
        interrupt_id="int-0001",
        choice="approve",
        content_sha256=ZERO,
        message_id="1700000000.000002",
    )


@pytest.mark.parametrize(
    "action",
    [{"value": "not-ours"}, {"action_id": "labbot:reboot"}, {"value": "int-1|short"}],
)
def test_foreign_or_altered_buttons_are_refused(action: dict) -> None:
    body = fixture("block_actions")
    body["actions"][0].update(action)
    with pytest.raises(ValueError):
        inbound.decision_from_action(body, BOB)


def test_modal_round_trip_carries_the_gate_and_the_feedback() -> None:
    click = fixture("block_actions")
    click["actions"][0]["action_id"] = "labbot:modify"
    view = inbound.modify_view(click)
    assert view["callback_id"] == "labbot:modify"
    assert len(view["private_metadata"]) <= 3000
    submitted = fixture("view_submission")
    submitted["view"]["private_metadata"] = view["private_metadata"]
    decision = inbound.decision_from_submission(submitted, BOB)
    assert (decision.choice, decision.feedback) == ("modify", "use area 1 instead")
    assert decision.thread.key == "slack:C1:1699999999.000100"
    assert decision.message_id == "1700000000.000002"
    assert (decision.interrupt_id, decision.content_sha256) == ("int-0001", ZERO)
    assert json.loads(view["private_metadata"])["channel"] == "C1"


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("app_mention", "event:Ev01MENTION"),
        ("block_actions", "action:U2:1700000001.000300"),
        ("view_submission", "view:V1"),
        ("slash_command", "command:1700000000.1.slashtrigger"),
    ],
)
def test_delivery_keys(name: str, key: str) -> None:
    assert inbound.delivery_key(fixture(name)) == key


def test_payload_user() -> None:
    assert inbound.payload_user(fixture("block_actions")) == ("U2", "bob")
    assert inbound.payload_user(fixture("slash_command")) == ("U1", "alice")
