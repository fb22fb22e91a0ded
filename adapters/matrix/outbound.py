"""Neutral `Message` -> Matrix `m.room.message` contents. Pure.

Each message becomes one or more events in the request's thread: a plain-text `body` for
clients without HTML, an `org.matrix.custom.html` `formatted_body` with `<pre><code
class="language-…">` blocks, and an `m.thread` relation with the reply fallback
(`is_falling_back` + `m.in_reply_to`) for clients without threads. A gate message carries its
button value under `org.labbot.gate`, so the gate can be recovered from the event alone (after a
restart, from any replica). Output that does not fit one event is split across several.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from adapters.chat import Actor, Button, CodeBlock, FileAttachment, Message
from adapters.marks import BOLD, CODE, ITALIC
from base.vocabulary import CHOICES, REPLY_WORDS, Choice

GATE_KEY = "org.labbot.gate"
# Reaction keys that stand for the buttons; the bot adds them to its own gate messages.
REACTION_KEYS = {"approve": "✅", "modify": "✏️", "cancel": "❌"}
LEVEL_ICON = {"info": "", "success": "✅ ", "warning": "⚠️ ", "error": "❌ "}
# Synapse refuses events over 65,536 bytes; body and formatted_body both hold the text, and
# HTML escaping can grow it, so one event carries at most this many characters of content.
PART_CHARS = 16_000

# Room-wide mentions clients notify everyone for (Element: `@room`; others: here/channel/everyone).
_ROOM_MENTION = re.compile(r"@(room|here|channel|everyone)\b", re.IGNORECASE)
WORD_JOINER = "\u2060"
_CHOICE: dict[str, Choice] = {choice: choice for choice in CHOICES}


@dataclass(frozen=True)
class Part:
    """One event's worth of a message: the lead text (first part only) and some code blocks."""

    text: str
    blocks: tuple[CodeBlock, ...]


def quiet(text: str) -> str:
    """Room-wide mentions in echoed text (a request, feedback, LLM output) shown but inert: a
    word joiner after the `@` breaks the keyword the push rules match."""
    return _ROOM_MENTION.sub(rf"@{WORD_JOINER}\1", text)


def inline_html(text: str) -> str:
    """Escape, then turn the presenter's `*bold*`, `_italic_` and `code` marks and newlines
    into HTML."""
    escaped = html.escape(text, quote=False)
    escaped = CODE.sub(r"<code>\1</code>", escaped)
    escaped = BOLD.sub(r"<strong>\1</strong>", escaped)
    escaped = ITALIC.sub(r"<em>\1</em>", escaped)
    return escaped.replace("\n", "<br>")


def plain(text: str) -> str:
    """The plain-text body drops the `*bold*` and `_italic_` marks (backticks read fine)."""
    return ITALIC.sub(r"\1", BOLD.sub(r"\1", text))


def block_html(block: CodeBlock) -> str:
    language = f' class="language-{html.escape(block.language)}"' if block.language else ""
    title = f"<p><strong>{html.escape(block.title)}</strong></p>" if block.title else ""
    return f"{title}<pre><code{language}>{html.escape(block.text, quote=False)}</code></pre>"


def block_text(block: CodeBlock) -> str:
    title = f"{block.title}\n" if block.title else ""
    return f"{title}```{block.language}\n{block.text}\n```"


def buttons_hint(buttons: tuple[Button, ...]) -> str:
    """How to press the buttons on Matrix: a reaction or a reply in the thread."""
    words = {"approve": "", "modify": ": <what to change>", "cancel": ""}
    reactions = " · ".join(f"{REACTION_KEYS[b.choice]} {b.label}" for b in buttons)
    replies = ", ".join(f"`{_reply_word(b)}{words[b.choice]}`" for b in buttons)
    return f"React {reactions} — or reply in this thread {replies}."


def _reply_word(button: Button) -> str:
    """The word typed for a button: its label where that is a reply word (`execute`,
    `confirm`), else its choice (`Roll back` is `approve`)."""
    label = button.label.casefold()
    return label if REPLY_WORDS.get(label) == button.choice else button.choice


def lead_text(message: Message) -> str:
    hint = buttons_hint(message.buttons) if message.buttons else ""
    parts = [LEVEL_ICON[message.level] + message.text, message.footer, hint]
    return "\n".join(part for part in parts if part)


def split_block(block: CodeBlock, limit: int = PART_CHARS) -> list[CodeBlock]:
    """Cut a block that does not fit one event at line boundaries (hard-cut overlong lines)."""
    if len(block.text) <= limit:
        return [block]
    chunks: list[str] = []
    current = ""
    for line in block.text.splitlines(keepends=True):
        while len(line) > limit:
            chunks.extend([current] if current else [])
            chunks.append(line[:limit])
            current, line = "", line[limit:]
        if len(current) + len(line) > limit:
            chunks.append(current)
            current = ""
        current += line
    chunks.extend([current] if current else [])
    total = len(chunks)
    title = block.title or "output"
    return [
        CodeBlock(chunk.rstrip("\n"), block.language, f"{title} ({n}/{total})")
        for n, chunk in enumerate(chunks, 1)
    ]


def split_parts(text: str, blocks: Iterable[CodeBlock], limit: int = PART_CHARS) -> list[Part]:
    """Group the text and the blocks into events of at most `limit` characters of content."""
    parts: list[Part] = []
    current: list[CodeBlock] = []
    size = len(text)
    for block in (piece for b in blocks for piece in split_block(b, limit)):
        if current and size + len(block.text) > limit:
            parts.append(Part(text if not parts else "", tuple(current)))
            current, size = [], 0
        current.append(block)
        size += len(block.text)
    parts.append(Part(text if not parts else "", tuple(current)))
    return parts


def part_content(part: Part, mention: Actor | None = None) -> dict[str, Any]:
    """The `m.room.message` content of one part (no relation yet). `m.mentions` is always set:
    it names who is notified (only `mention`), and its presence turns off the clients' older
    keyword rules (a display name or `@room` in the body)."""
    part = Part(quiet(part.text), tuple(replace(b, text=quiet(b.text)) for b in part.blocks))
    bodies, htmls = [], []
    if part.text or mention:
        bodies.append(plain(part.text))
        htmls.append(inline_html(part.text))
    if mention:
        link = f"https://matrix.to/#/{html.escape(mention.id)}"
        bodies[0] = f"{mention.name}: {bodies[0]}"
        htmls[0] = f'<a href="{link}">{html.escape(mention.name, quote=False)}</a>: {htmls[0]}'
    htmls = [f"<p>{h}</p>" for h in htmls]
    bodies.extend(block_text(b) for b in part.blocks)
    htmls.extend(block_html(b) for b in part.blocks)
    content: dict[str, Any] = {
        "msgtype": "m.notice",
        "body": "\n".join(bodies),
        "format": "org.matrix.custom.html",
        "formatted_body": "".join(htmls),
        "m.mentions": {"user_ids": [mention.id]} if mention else {},
    }
    return content


def gate_marker(buttons: tuple[Button, ...]) -> dict[str, Any]:
    """What a reaction or reply on this message decides: the button value and the choices."""
    return {
        "value": buttons[0].value,
        "choices": {b.choice: b.label for b in buttons},
    }


def message_contents(message: Message, mention: Actor | None = None) -> list[dict[str, Any]]:
    """Every event a message needs, in order; the first one is the one later updates edit."""
    blocks = (*message.blocks, *message.attachments)
    contents = [
        part_content(part, mention if index == 0 else None)
        for index, part in enumerate(split_parts(lead_text(message), blocks))
    ]
    if message.buttons:
        contents[0][GATE_KEY] = gate_marker(message.buttons)
    return contents


def file_content(
    attached: FileAttachment, url: str, keys: dict[str, Any] | None = None
) -> dict[str, Any]:
    """An `m.image` (shown inline) or `m.file` event for an uploaded file; `keys`: the
    decryption keys of an encrypted upload (encrypted rooms), which then go in `file`."""
    info: dict[str, Any] = {"mimetype": attached.mime, "size": len(attached.data)}
    if attached.image and attached.width:
        info.update(w=attached.width, h=attached.height)
    content: dict[str, Any] = {
        "msgtype": "m.image" if attached.image else "m.file",
        "body": attached.name,
        "filename": attached.name,
        "info": info,
    }
    if keys:
        content["file"] = {"url": url, "mimetype": attached.mime, **keys}
    else:
        content["url"] = url
    return content


def in_thread(content: dict[str, Any], root: str, reply_to: str) -> dict[str, Any]:
    """Put a content in the thread of `root`, replying to `reply_to` for thread-less clients."""
    relation = {
        "rel_type": "m.thread",
        "event_id": root,
        "is_falling_back": True,
        "m.in_reply_to": {"event_id": reply_to or root},
    }
    return {**content, "m.relates_to": relation}


def edit_content(event_id: str, message: Message) -> dict[str, Any]:
    """An `m.replace` edit of `event_id` showing `message` (its first part: edits replace one
    event). Clients without edit support show the `* `-prefixed fallback."""
    return edit_of(event_id, message_contents(message)[0])


def closed_content(gate: dict[str, Any], footer: str) -> dict[str, Any]:
    """A gate message's first event (`gate`, its content as sent) with the line saying how to
    decide it swapped for `footer`: everything else as it was shown, the gate not rendered
    again. Its marker and relation stay with the original event (an edit carries neither)."""
    hint = _hint_of(gate)
    said = quiet(footer)
    content = {k: v for k, v in gate.items() if k not in (GATE_KEY, "m.relates_to")}
    content["body"] = _swapped(str(gate.get("body", "")), plain(hint), plain(said), "\n")
    formatted = str(gate.get("formatted_body", ""))
    shown = inline_html(said)
    if hint and inline_html(hint) in formatted:
        content["formatted_body"] = formatted.replace(inline_html(hint), shown, 1)
    elif "</p>" in formatted:
        content["formatted_body"] = formatted.replace("</p>", f"<br>{shown}</p>", 1)
    else:
        content["formatted_body"] = f"<p>{shown}</p>{formatted}"
    return content


def _hint_of(gate: dict[str, Any]) -> str:
    """The line of `gate` saying how to decide it, as sent ("" when it has none): from its
    marker's choices in their order, or in the buttons' usual order (a homeserver may hand the
    event back with its keys sorted)."""
    marker = gate.get(GATE_KEY) or {}
    value, labels = str(marker.get("value", "")), dict(marker.get("choices") or {})
    orders = (list(labels), [c for c in CHOICES if c in labels])
    hints = [
        quiet(buttons_hint(tuple(Button(str(labels[c]), _CHOICE[c], value=value) for c in order)))
        for order in orders
        if order and all(c in _CHOICE for c in order)
    ]
    body = str(gate.get("body", ""))
    return next((hint for hint in hints if plain(hint) in body), "")


def _swapped(text: str, old: str, new: str, joint: str) -> str:
    """`old` in `text` replaced by `new` (once); `new` added after `text` when it is not there."""
    if old and old in text:
        return text.replace(old, new, 1)
    return f"{text}{joint}{new}" if text else new


def edit_of(event_id: str, new_content: dict[str, Any]) -> dict[str, Any]:
    """An `m.replace` edit of `event_id` showing `new_content`."""
    return {
        "msgtype": new_content["msgtype"],
        "body": f"* {new_content['body']}",
        "format": "org.matrix.custom.html",
        "formatted_body": f"* {new_content['formatted_body']}",
        "m.new_content": new_content,
        "m.mentions": {},
        "m.relates_to": {"rel_type": "m.replace", "event_id": event_id},
    }


def reaction_content(event_id: str, key: str) -> dict[str, Any]:
    return {"m.relates_to": {"rel_type": "m.annotation", "event_id": event_id, "key": key}}


def notice_content(text: str) -> dict[str, Any]:
    """A plain notice outside any thread (room-level warnings such as missing E2EE)."""
    return {
        "msgtype": "m.notice",
        "body": plain(quiet(text)),
        "format": "org.matrix.custom.html",
        "formatted_body": inline_html(quiet(text)),
        "m.mentions": {},
    }
