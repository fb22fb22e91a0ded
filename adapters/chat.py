"""The neutral chat model: what adapters deliver (events) and what they render (messages).

Adapters translate platform payloads into these frozen types and render `Message`s natively
(Slack Block Kit, Matrix HTML, console). They know nothing else of labbot.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Literal, Protocol, runtime_checkable

from base.vocabulary import REPLY_WORDS, Choice

__all__ = [
    "CHANGE_ID_PREFIX",
    "Actor",
    "Button",
    "ChatAdapter",
    "ChatEvent",
    "CodeBlock",
    "Decision",
    "EventHandler",
    "FileAttachment",
    "FilesNotAttached",
    "Home",
    "HomeOpened",
    "HomePublisher",
    "HomeSection",
    "Message",
    "PeopleDirectory",
    "PlaceIds",
    "PlaceNames",
    "Request",
    "ThreadRef",
    "button_value",
    "decision_by_id",
    "parse_button_value",
    "parse_reply",
]


@dataclass(frozen=True)
class Actor:
    id: str  # platform user id (U123, @alice:hs, console:alice)
    name: str  # display name (what the audit shows beside the id)
    # platform markup that mentions this user ("<@U123>"); not part of who the actor is
    mention: str = field(default="", compare=False)

    @property
    def shown(self) -> str:
        return self.mention or self.name


@dataclass(frozen=True)
class ThreadRef:
    """Where a conversation lives. `key` is the LangGraph thread_id."""

    platform: str  # slack | matrix | console
    channel: str  # channel id / room id
    thread: str  # thread root id (message ts / event id)

    @property
    def key(self) -> str:
        return f"{self.platform}:{self.channel}:{self.thread}"


@dataclass(frozen=True)
class Request:
    """Free text addressed to the bot: a change request or a command (help, audit, ...)."""

    thread: ThreadRef
    actor: Actor
    text: str


@dataclass(frozen=True)
class Decision:
    """A click (or reaction, or reply) on a gate."""

    thread: ThreadRef
    actor: Actor
    interrupt_id: str
    choice: Choice
    content_sha256: str
    feedback: str | None = None
    message_id: str = ""  # the platform id of the gate message clicked, when the platform says
    # why the platform cannot vouch that `actor` made it (an unverified device); refused if set
    untrusted_because: str = ""
    typed: bool = False  # typed in reply to the gate message it decides (not a button)


@dataclass(frozen=True)
class HomeOpened:
    """Someone opened the bot's home (Slack App Home tab): show them what waits for them."""

    thread: ThreadRef  # the person's conversation with the bot (where an error would be told)
    actor: Actor


ChatEvent = Request | Decision | HomeOpened


@dataclass(frozen=True)
class CodeBlock:
    text: str
    language: str = ""
    title: str = ""


@dataclass(frozen=True)
class Button:
    label: str
    choice: Choice
    style: Literal["primary", "danger", "default"] = "default"
    value: str = ""  # opaque to adapters: "<interrupt_id>|<sha256>"
    confirm: str = ""  # text of a confirm dialog, where the platform has one


@dataclass(frozen=True)
class FileAttachment:
    """A file posted with a message: a report to keep, or a picture (`image`: shown inline)."""

    name: str  # file name people save it as (report.html, topology.png)
    data: bytes
    mime: str  # text/html, image/png
    image: bool = False
    alt: str = ""  # what the picture shows, for clients that cannot show it
    width: int = 0  # pixels, for images
    height: int = 0


class FilesNotAttached(Exception):
    """`post` posted the message (`message_id`) but some of its files could not be uploaded
    (`names`: those missing). A file is an extra: the caller keeps the message and says so."""

    def __init__(self, message_id: str, names: tuple[str, ...], reason: str) -> None:
        super().__init__(f"cannot attach {', '.join(names)}: {reason}")
        self.message_id = message_id
        self.names = names


@dataclass(frozen=True)
class Message:
    """One message in a thread; `key` names a message later updates replace (gate, progress)."""

    text: str
    blocks: tuple[CodeBlock, ...] = ()
    buttons: tuple[Button, ...] = ()
    footer: str = ""  # "✅ Approved by … at …" once decided
    key: str = ""
    ephemeral_to: str = ""  # actor id: show only to this user where the platform can
    level: Literal["info", "success", "warning", "error"] = "info"
    attachments: tuple[CodeBlock, ...] = field(default_factory=tuple)  # too long to inline
    # platform markup the bot placed on purpose (the decider's mention); any other mention-like
    # text (a person's or an LLM's `<!channel>`) is shown as text and notifies nobody
    mentions: tuple[str, ...] = ()
    files: tuple[FileAttachment, ...] = ()  # posted with the message (not kept by updates)


@dataclass(frozen=True)
class HomeSection:
    title: str
    lines: tuple[str, ...]  # one item each (plain text; links as bare URLs)
    empty: str  # shown when there are no lines


@dataclass(frozen=True)
class Home:
    """A person's own page with the bot (Slack App Home), in sections."""

    sections: tuple[HomeSection, ...]


@runtime_checkable
class HomePublisher(Protocol):
    """A platform with a per-person home page the bot writes (Slack's App Home)."""

    async def publish_home(self, user_id: str, home: Home) -> None: ...


EventHandler = Callable[[ChatEvent], Awaitable[None]]


class ChatAdapter(Protocol):
    """A chat platform: connect, deliver events to the handler, post and update messages."""

    platform: str

    async def run(self, handler: EventHandler) -> None:
        """Connect and deliver events until cancelled."""
        ...

    async def post(self, thread: ThreadRef, message: Message) -> str:
        """Post into the thread; return the platform message id. Raises FilesNotAttached when
        the message is posted but its files could not be."""
        ...

    async def update(self, thread: ThreadRef, message_id: str, message: Message) -> None:
        """Replace a message posted earlier (progress advanced, the model still writing)."""
        ...

    async def close_gate(
        self, thread: ThreadRef, message_id: str, footer: str, mentions: tuple[str, ...] = ()
    ) -> None:
        """Swap the buttons of the gate message `message_id` for `footer` (who decided it, or
        when it expired; `mentions`: the markup in it placed on purpose). What the gate showed
        stays as it was shown: the platform's copy is kept, the gate is not rendered again."""
        ...


@runtime_checkable
class PeopleDirectory(Protocol):
    """What a platform says about people and places, asked by the approval policy.

    Read-only and narrow: an adapter answers from its platform (Slack user groups, Matrix
    power levels, direct-message conversations) and decides nothing."""

    async def is_direct(self, channel: str) -> bool:
        """Whether `channel` is a direct conversation with the bot rather than a channel/room."""
        ...

    async def members(self, group: str) -> frozenset[str]:
        """User ids in the user group `group` (a handle such as `@netops`); empty if unknown."""
        ...

    async def power_level(self, channel: str, user_id: str) -> int:
        """The user's power level in the room (0 where the platform has none)."""
        ...


@runtime_checkable
class PlaceNames(Protocol):
    """The names a channel or room goes by, for a bot serving many labs (which lab a place is
    may be written by name): Slack's `#name`, a Matrix room's canonical alias."""

    async def place_names(self, channel: str) -> tuple[str, ...]:
        """`#name`s of `channel` (a channel id, a room id); () when it has none or is unknown."""
        ...


@runtime_checkable
class PlaceIds(Protocol):
    """The id a place named `#name` has (what PlaceNames answers, the other way round), so a
    bot serving many labs can open a thread in a lab written by name."""

    async def place_id(self, place: str) -> str | None:
        """The id of `place` (an id is its own); None when the platform does not know it now."""
        ...


_REPLY = re.compile(rf"^({'|'.join(REPLY_WORDS)})\b\s*[:,-]?\s*(.*)$", re.IGNORECASE | re.DOTALL)


def parse_reply(text: str) -> tuple[Choice, str | None] | None:
    """A decision typed as words: `approve`, `execute`, `modify: what`, `cancel` -> (choice,
    feedback); None for anything else ("cancel the ntp part" is a sentence, not a button)."""
    match = _REPLY.match(text.strip())
    if match is None:
        return None
    choice = REPLY_WORDS[match.group(1).lower()]
    feedback = match.group(2).strip() or None
    if choice != "modify" and feedback:
        return None
    return choice, feedback


CHANGE_ID_PREFIX = "chg-"  # every change id starts so (bot.decisions.requests makes them)
_BY_ID = re.compile(
    rf"^({'|'.join(REPLY_WORDS)})\s+({CHANGE_ID_PREFIX}[0-9a-z]+)\b\s*[:,-]?\s*(.*)$",
    re.IGNORECASE | re.DOTALL,
)


def decision_by_id(text: str) -> tuple[Choice, str, str | None] | None:
    """A decision on an open change named by its id — `approve chg-1a2b3c4d`, `modify
    chg-1a2b3c4d: area 1`, `cancel chg-1a2b3c4d` -> (choice, change id, feedback); else None."""
    match = _BY_ID.match(text.strip())
    if match is None:
        return None
    choice = REPLY_WORDS[match.group(1).lower()]
    return choice, match.group(2).lower(), match.group(3).strip() or None


def button_value(interrupt_id: str, sha256: str) -> str:
    return f"{interrupt_id}|{sha256}"


def parse_button_value(value: str) -> tuple[str, str]:
    """Inverse of `button_value`; raises ValueError on anything else."""
    interrupt_id, sep, sha256 = value.partition("|")
    if not sep or not interrupt_id or len(sha256) != 64:
        raise ValueError(f"not a labbot button value: {value[:80]!r}")
    return interrupt_id, sha256
