"""Slack payloads → neutral events (`Request`, `Decision`) and the Modify modal. Pure.

Payload shapes are Slack's: Events API `event_callback` bodies (app_mention, message.im),
slash-command forms, `block_actions` and `view_submission` interaction payloads.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from adapters.chat import Actor, Decision, Request, ThreadRef, parse_button_value
from adapters.slack import texts
from adapters.slack.blocks import ACTION_PREFIX
from base.vocabulary import CHOICES, Choice

PLATFORM = "slack"
MODIFY_CALLBACK = "labbot:modify"
FEEDBACK_BLOCK = "feedback"
FEEDBACK_ACTION = "text"

Payload = Mapping[str, Any]


def thread_ref(channel: str, thread: str) -> ThreadRef:
    return ThreadRef(PLATFORM, channel, thread)


def mention_text(text: str, bot_user_id: str) -> str:
    """The request without the bot's own mention; an empty request asks for help."""
    if bot_user_id:
        text = re.sub(rf"<@{re.escape(bot_user_id)}(?:\|[^>]*)?>", " ", text)
    return " ".join(text.split()) or "help"


def event_thread(event: Payload) -> ThreadRef:
    """A top-level message starts its own thread; a reply continues its thread."""
    return thread_ref(event["channel"], event.get("thread_ts") or event["ts"])


def is_direct_message(event: Payload) -> bool:
    """A person's own DM to the bot (not an edit, a join, or a bot's message)."""
    return (
        event.get("channel_type") == "im"
        and "subtype" not in event
        and "bot_id" not in event
        and bool(event.get("user"))
    )


def request_from_event(event: Payload, actor: Actor, bot_user_id: str) -> Request:
    return Request(event_thread(event), actor, mention_text(event.get("text", ""), bot_user_id))


def payload_user(body: Payload) -> tuple[str, str]:
    """(user id, name given in the payload) of an interaction or slash command."""
    if "user" in body and isinstance(body["user"], Mapping):
        user = body["user"]
        return user["id"], user.get("name") or user.get("username") or ""
    return body["user_id"], body.get("user_name", "")


def choice_of(action_id: str) -> Choice:
    suffix = action_id.removeprefix(ACTION_PREFIX)
    for choice in CHOICES:
        if choice == suffix:
            return choice
    raise ValueError(f"not a labbot action: {action_id!r}")


def decision_from_action(body: Payload, actor: Actor) -> Decision:
    """A button click on a gate message; raises ValueError for a foreign or altered button."""
    action = body["actions"][0]
    interrupt_id, sha256 = parse_button_value(action.get("value", ""))
    message = body["message"]
    channel = body.get("channel", {}).get("id") or body["container"]["channel_id"]
    return Decision(
        thread=thread_ref(channel, message.get("thread_ts") or message["ts"]),
        actor=actor,
        interrupt_id=interrupt_id,
        choice=choice_of(action["action_id"]),
        content_sha256=sha256,
        message_id=body["container"].get("message_ts") or message["ts"],
    )


def modify_view(body: Payload) -> dict[str, Any]:
    """The modal asking what to change; the clicked gate travels in private_metadata."""
    decision = decision_from_action(body, Actor("", ""))
    metadata = {
        "channel": decision.thread.channel,
        "thread": decision.thread.thread,
        "message": decision.message_id,
        "value": body["actions"][0]["value"],
    }
    return {
        "type": "modal",
        "callback_id": MODIFY_CALLBACK,
        "private_metadata": json.dumps(metadata),
        "title": {"type": "plain_text", "text": texts.MODAL_TITLE},
        "submit": {"type": "plain_text", "text": texts.MODAL_SUBMIT},
        "close": {"type": "plain_text", "text": texts.MODAL_CANCEL},
        "blocks": [
            {
                "type": "input",
                "block_id": FEEDBACK_BLOCK,
                "label": {"type": "plain_text", "text": texts.MODAL_LABEL},
                "hint": {"type": "plain_text", "text": texts.MODAL_HINT},
                "element": {
                    "type": "plain_text_input",
                    "action_id": FEEDBACK_ACTION,
                    "multiline": True,
                    "max_length": 2000,
                    "placeholder": {"type": "plain_text", "text": texts.MODAL_PLACEHOLDER},
                },
            }
        ],
    }


def decision_from_submission(body: Payload, actor: Actor) -> Decision:
    """The submitted Modify modal: a `modify` decision carrying the feedback text."""
    view = body["view"]
    metadata = json.loads(view["private_metadata"])
    interrupt_id, sha256 = parse_button_value(metadata["value"])
    feedback = view["state"]["values"][FEEDBACK_BLOCK][FEEDBACK_ACTION].get("value") or ""
    return Decision(
        thread=thread_ref(metadata["channel"], metadata["thread"]),
        actor=actor,
        interrupt_id=interrupt_id,
        choice="modify",
        content_sha256=sha256,
        feedback=feedback.strip(),
        message_id=metadata["message"],
    )


def delivery_team(body: Payload) -> str:
    """The workspace a delivery comes from (events carry `team_id`, interactions `team.id`)."""
    team = body.get("team")
    if isinstance(team, dict) and isinstance(team.get("id"), str):
        return str(team["id"])
    return str(body.get("team_id") or "")


def delivery_key(body: Payload) -> str | None:
    """What identifies one delivery across Slack's retries (None: nothing to go by)."""
    if body.get("event_id"):
        return f"event:{body['event_id']}"
    kind = body.get("type")
    if kind == "block_actions" and body.get("actions"):
        return f"action:{body['user']['id']}:{body['actions'][0].get('action_ts')}"
    if kind == "view_submission":
        return f"view:{body['view']['id']}"
    if body.get("command") and body.get("trigger_id"):
        return f"command:{body['trigger_id']}"
    return None
