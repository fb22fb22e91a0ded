"""Slack payload fixtures (JSON files shaped as Slack sends them), adapted per test."""

from __future__ import annotations

import copy
import itertools
import json
from pathlib import Path
from typing import Any

from tests.fakes.slack_api import Posted

FIXTURES = Path(__file__).parent / "fixtures"
_serial = itertools.count(1)

Json = dict[str, Any]


def fixture(name: str) -> Json:
    return json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))


def distinct_clicks(count: int, response_url: str) -> list[Json]:
    """`count` block_actions clicks, each its own delivery (own action_ts), answering to
    `response_url`."""
    clicks = [fixture("block_actions") for _ in range(count)]
    for n, pressed in enumerate(clicks):
        pressed["actions"][0]["action_ts"] = f"1700000100.{n:06d}"
        pressed["response_url"] = response_url
    return clicks


def mention(text: str, *, user: str = "U1", channel: str = "C1", thread_ts: str = "") -> Json:
    """An app_mention event_callback with a fresh event id and ts."""
    body = fixture("app_mention")
    n = next(_serial)
    event = body["event"]
    event.update(text=f"<@UBOT> {text}", user=user, channel=channel, ts=f"1699990000.{n:06d}")
    if thread_ts:
        event["thread_ts"] = thread_ts
    body["event_id"] = f"Ev{n:08d}"
    return body


def click(message: Posted, label: str, *, user: str = "U2", name: str = "bob") -> Json:
    """A block_actions payload for pressing the button labelled `label` on a posted message."""
    button = next(b for b in message.buttons if b["text"]["text"] == label)
    body = fixture("block_actions")
    body["user"].update(id=user, username=name, name=name)
    body["container"].update(message_ts=message.ts, channel_id=message.channel)
    body["container"]["thread_ts"] = message.thread_ts
    body["channel"]["id"] = message.channel
    body["message"].update(
        ts=message.ts, thread_ts=message.thread_ts, text=message.text, blocks=message.blocks
    )
    action = body["actions"][0]
    action.update(
        action_id=button["action_id"],
        value=button["value"],
        text=button["text"],
        action_ts=f"1700000100.{next(_serial):06d}",
    )
    return body


def submission(view: Json, feedback: str, *, user: str = "U2", name: str = "bob") -> Json:
    """The view_submission of the modal `view` (as views.open received it) with `feedback`."""
    body = fixture("view_submission")
    body["user"].update(id=user, username=name, name=name)
    body["view"] = copy.deepcopy(body["view"]) | {
        "id": view["id"],
        "private_metadata": view["private_metadata"],
        "blocks": view["blocks"],
    }
    body["view"]["state"]["values"]["feedback"]["text"]["value"] = feedback
    return body
