"""Matrix room events (raw client-server JSON) -> what they mean to labbot. Pure.

- A message that mentions the bot (`m.mentions`, its user id, a pill, or its name followed by
  `:`/`,`) or starts with `!labbot` is a `Request` in the message's thread (the message itself
  roots a new thread when it is in none).
- In a thread, a reply `approve` / `execute` / `modify: …` / `cancel` is a decision on the
  thread's gate it replies to (directly or by the thread fallback): a `Reply` (the adapter looks
  the gate up, then builds the `Decision`).
- A reaction ✅ ✏️ ❌ is a decision on the message it annotates: a `Reaction`.
- The bot's own events, edits, notices, redacted events and events older than the adapter's
  start are nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from adapters.chat import Actor, Decision, Request, ThreadRef, parse_button_value, parse_reply
from adapters.matrix.outbound import GATE_KEY
from base.vocabulary import CHOICES, Choice

PLATFORM = "matrix"
PREFIX = "!labbot"
REACTION_CHOICES: dict[str, Choice] = {
    "✅": "approve",
    "✔": "approve",
    "✏": "modify",
    "❌": "cancel",
}
_VARIATION_SELECTORS = dict.fromkeys(map(ord, "\ufe0e\ufe0f"))

Event = Mapping[str, Any]


@dataclass(frozen=True)
class BotIdentity:
    user_id: str  # @labbot:example.org
    name: str  # display name, e.g. "labbot"


@dataclass(frozen=True)
class Reply:
    """A decision word typed in a thread; it applies to the gate its author saw last there."""

    thread: ThreadRef
    actor: Actor
    choice: Choice
    feedback: str | None
    addressed: bool = False  # it also mentioned the bot: answer even when no gate is pending
    replies_to: str = ""  # the event it replies to (`m.in_reply_to`; the thread fallback too)
    untrusted_because: str = ""  # see `Decision.untrusted_because`


@dataclass(frozen=True)
class Reaction:
    """A decision reaction on `target` (an event id; a gate message if the bot sent it)."""

    room_id: str
    actor: Actor
    target: str
    choice: Choice
    untrusted_because: str = ""  # see `Decision.untrusted_because`


@dataclass(frozen=True)
class GateRef:
    """A gate message: where it is and the button value its reactions and replies decide."""

    thread: ThreadRef
    event_id: str
    value: str
    choices: tuple[Choice, ...]


Inbound = Request | Reply | Reaction


def is_fresh(event: Event, since_ms: int) -> bool:
    """Events from before the adapter started are the backlog: never replayed."""
    return int(event.get("origin_server_ts", 0)) >= since_ms


def is_redacted(event: Event) -> bool:
    return "redacted_because" in event.get("unsigned", {}) or not event.get("content")


def redacted_ids(events: Iterable[Event]) -> set[str]:
    """Ids redacted by a redaction in the same batch: such reactions never count."""
    ids = set()
    for event in events:
        if event.get("type") == "m.room.redaction":
            target = event.get("redacts") or event.get("content", {}).get("redacts")
            if target:
                ids.add(str(target))
    return ids


def thread_root(content: Mapping[str, Any]) -> str:
    """The thread an event is in ("" when none)."""
    relation = content.get("m.relates_to") or {}
    return str(relation.get("event_id", "")) if relation.get("rel_type") == "m.thread" else ""


def replied_to(content: Mapping[str, Any]) -> str:
    """The event a message replies to ("" when none)."""
    relation = content.get("m.relates_to") or {}
    reply = relation.get("m.in_reply_to") or {}
    return str(reply.get("event_id", "")) if isinstance(reply, Mapping) else ""


def strip_reply_fallback(body: str) -> str:
    """Drop the `> <@user> quoted` lines older clients put before a reply."""
    lines = body.splitlines()
    while lines and lines[0].startswith(">"):
        lines.pop(0)
    return "\n".join(lines).strip()


def addressed_text(content: Mapping[str, Any], bot: BotIdentity) -> str | None:
    """The text after the mention or prefix, or None when the message is not for the bot."""
    body = strip_reply_fallback(str(content.get("body", "")))
    lowered = body.lower()
    if lowered.startswith(PREFIX) and (len(body) == len(PREFIX) or not body[len(PREFIX)].isalnum()):
        return body[len(PREFIX) :].strip()
    localpart = bot.user_id[1:].split(":", 1)[0]
    for token in (bot.user_id, bot.name, localpart, f"@{localpart}"):
        if token and lowered.startswith(token.lower()):
            rest = body[len(token) :]
            if not rest or rest[0] in ":, \n":
                return rest.lstrip(":, \n").strip()
    mentions = content.get("m.mentions") or {}
    formatted = str(content.get("formatted_body", ""))
    mentioned = bot.user_id in mentions.get("user_ids", []) or f"/#/{bot.user_id}" in formatted
    if mentioned or bot.user_id in body:
        pill = re.search(
            rf'href="https://matrix\.to/#/{re.escape(bot.user_id)}">([^<]*)</a>', formatted
        )
        if pill and body.startswith(pill.group(1)):
            body = body[len(pill.group(1)) :]
        return re.sub(r"  +", " ", body.replace(bot.user_id, "")).lstrip(":, \n").strip()
    return None


def message_event(
    room_id: str, event: Event, actor: Actor, bot: BotIdentity
) -> Request | Reply | None:
    content = event.get("content", {})
    if content.get("msgtype") != "m.text" or "m.new_content" in content:
        return None
    root = thread_root(content)
    thread = ThreadRef(PLATFORM, room_id, root or str(event.get("event_id", "")))
    text = addressed_text(content, bot)
    if root:
        reply = parse_reply(
            text if text is not None else strip_reply_fallback(str(content.get("body", "")))
        )
        if reply is not None:
            addressed, replies_to = text is not None, replied_to(content)
            return Reply(thread, actor, *reply, addressed=addressed, replies_to=replies_to)
    if text is None:
        return None
    return Request(thread, actor, text)


def reaction_event(room_id: str, event: Event, actor: Actor) -> Reaction | None:
    relation = event.get("content", {}).get("m.relates_to") or {}
    if relation.get("rel_type") != "m.annotation":
        return None
    key = str(relation.get("key", "")).translate(_VARIATION_SELECTORS).strip()
    choice = REACTION_CHOICES.get(key)
    target = relation.get("event_id")
    if choice is None or not target:
        return None
    return Reaction(room_id, actor, str(target), choice)


def translate(room_id: str, event: Event, actor: Actor, bot: BotIdentity) -> Inbound | None:
    """What one timeline event means to labbot (None: nothing)."""
    if event.get("sender") == bot.user_id or is_redacted(event):
        return None
    if event.get("type") == "m.room.message":
        return message_event(room_id, event, actor, bot)
    if event.get("type") == "m.reaction":
        return reaction_event(room_id, event, actor)
    return None


def gate_ref(room_id: str, event: Event, bot_user_id: str) -> GateRef | None:
    """The gate a bot message carries (None for anything else, or a forged marker)."""
    content = event.get("content", {})
    marker = content.get(GATE_KEY)
    if event.get("sender") != bot_user_id or not isinstance(marker, Mapping):
        return None
    value = str(marker.get("value", ""))
    try:
        parse_button_value(value)
    except ValueError:
        return None
    root = thread_root(content) or str(event.get("event_id", ""))
    choices = tuple(c for c in marker.get("choices", {}) if c in CHOICES)
    return GateRef(ThreadRef(PLATFORM, room_id, root), str(event["event_id"]), value, choices)


def decision(gate: GateRef, event: Reply | Reaction) -> Decision:
    """The decision `event` makes on `gate` (a reply's feedback goes with it)."""
    interrupt_id, sha256 = parse_button_value(gate.value)
    feedback = event.feedback if isinstance(event, Reply) else None
    return Decision(
        gate.thread,
        event.actor,
        interrupt_id,
        event.choice,
        sha256,
        feedback,
        message_id=gate.event_id,
        untrusted_because=event.untrusted_because,
        typed=isinstance(event, Reply),
    )


def power_level(power_levels: Mapping[str, Any], user_id: str) -> int:
    """A user's level in an m.room.power_levels content: their own entry, else users_default."""
    users = power_levels.get("users") or {}
    level = users.get(user_id, power_levels.get("users_default", 0))
    return level if isinstance(level, int) else 0


def invited_as_direct(invite_state: Iterable[Any], bot_user_id: str) -> bool:
    """Whether the bot's invite (in a room's invite state) marks the room a direct chat."""
    return any(
        getattr(event, "state_key", None) == bot_user_id
        and bool(getattr(event, "content", {}).get("is_direct"))
        for event in invite_state
    )
