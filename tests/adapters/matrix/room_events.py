"""What the Matrix tests look for in a room: predicates over raw events (messages in a thread,
gates, edits, reactions, memberships) and a room with the bot and everyone in it."""

from __future__ import annotations

from collections.abc import Callable

from tests.adapters.matrix.chat_user import ChatUser, Event

GATE_KEY = "org.labbot.gate"
Predicate = Callable[[str, Event], bool]  # (room id, event): what `ChatUser.wait_for` waits for


def thread_message(
    room_id: str, root: str, sender: str, where: Callable[[Event], bool] = lambda _: True
) -> Predicate:
    """A message of `sender` in the thread of `root` that also satisfies `where`."""

    def matches(room: str, event: Event) -> bool:
        relation = event.get("content", {}).get("m.relates_to") or {}
        return (
            room == room_id
            and event.get("sender") == sender
            and event.get("type") == "m.room.message"
            and relation.get("rel_type") == "m.thread"
            and relation.get("event_id") == root
            and where(event)
        )

    return matches


def is_gate(step: str) -> Callable[[Event], bool]:
    return lambda event: GATE_KEY in event["content"] and step in event["content"]["body"]


def body_has(*words: str) -> Callable[[Event], bool]:
    return lambda event: all(word in event["content"]["body"] for word in words)


def edit_of(event_id: str, text: str) -> Predicate:
    """An edit of `event_id` whose new text contains `text`."""

    def matches(room: str, event: Event) -> bool:
        content = event.get("content", {})
        relation = content.get("m.relates_to") or {}
        return (
            relation.get("rel_type") == "m.replace"
            and relation.get("event_id") == event_id
            and text in content.get("m.new_content", {}).get("body", "")
        )

    return matches


def reaction_by(user_id: str, target: str, key: str) -> Predicate:
    def matches(room: str, event: Event) -> bool:
        relation = event.get("content", {}).get("m.relates_to") or {}
        return (
            event.get("type") == "m.reaction"
            and event.get("sender") == user_id
            and relation.get("event_id") == target
            and relation.get("key") == key
        )

    return matches


def membership(room_id: str, user_id: str, state: str) -> Predicate:
    """`user_id`'s membership in the room became `state` (join, leave, invite)."""
    return lambda room, event: (
        room == room_id
        and event.get("type") == "m.room.member"
        and event.get("state_key") == user_id
        and event["content"].get("membership") == state
    )


async def shared_room(
    owner: ChatUser, bot_id: str, *others: ChatUser, encrypted: bool = False
) -> str:
    """A room with the bot and everyone in it (the bot joins on invite)."""
    room = await owner.create_room([bot_id, *(o.user_id for o in others)], encrypted=encrypted)
    for other in others:
        await other.join(room)
    await owner.wait_for(membership(room, bot_id, "join"))
    return room
