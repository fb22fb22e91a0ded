"""A chat adapter that records what the bot says, and helpers to click its buttons."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field, replace

from adapters.chat import (
    Actor,
    Decision,
    EventHandler,
    Message,
    Request,
    ThreadRef,
    parse_button_value,
)

THREAD = ThreadRef("console", "lab-channel", "t1")


@dataclass
class RecordingAdapter:
    platform: str = "console"
    posts: list[tuple[str, ThreadRef, Message]] = field(default_factory=list)
    updates: list[tuple[str, Message]] = field(default_factory=list)
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    async def run(self, handler: EventHandler) -> None:  # events are injected by the tests
        return None

    async def post(self, thread: ThreadRef, message: Message) -> str:
        message_id = f"m{next(self._ids)}"
        self.posts.append((message_id, thread, message))
        return message_id

    async def update(self, thread: ThreadRef, message_id: str, message: Message) -> None:
        self.updates.append((message_id, message))

    async def close_gate(
        self, thread: ThreadRef, message_id: str, footer: str, mentions: tuple[str, ...] = ()
    ) -> None:
        """As a platform shows it: the gate message as posted, its buttons swapped for `footer`
        (recorded as an update of that message)."""
        posted = next((m for mid, _, m in self.posts if mid == message_id), Message(""))
        closed = replace(posted, buttons=(), footer=footer, mentions=mentions, files=())
        self.updates.append((message_id, closed))

    def messages(self) -> list[Message]:
        return [message for _, _, message in self.posts]

    def last_gate(self) -> tuple[str, Message]:
        gates = [(mid, m) for mid, _, m in self.posts if m.buttons]
        assert gates, f"no gate was posted; the bot said: {[m.text for m in self.messages()]}"
        return gates[-1]

    def said_to(self, actor_id: str) -> list[str]:
        return [m.text for m in self.messages() if m.ephemeral_to == actor_id]

    def texts(self) -> list[str]:
        return [m.text for m in self.messages()]


def person(name: str) -> Actor:
    return Actor(id=f"console:{name}", name=name)


def ask(text: str, who: str = "alice", thread: ThreadRef = THREAD) -> Request:
    return Request(thread, person(who), text)


def click(
    adapter: RecordingAdapter,
    who: str,
    choice: str = "approve",
    feedback: str | None = None,
    thread: ThreadRef = THREAD,
) -> Decision:
    """Press a button of the latest gate the bot posted."""
    message_id, gate = adapter.last_gate()
    button = next(b for b in gate.buttons if b.choice == choice)
    interrupt_id, sha256 = parse_button_value(button.value)
    return Decision(
        thread, person(who), interrupt_id, button.choice, sha256, feedback, message_id=message_id
    )
