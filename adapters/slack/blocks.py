"""Neutral `Message` → Slack Block Kit. Pure.

Slack refuses a message whose section text exceeds 3,000 characters or that has more than 50
blocks, so long text is split into several sections, and code blocks that do not fit in one
message become files uploaded into the thread (the adapter uploads `Rendered.files`).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from adapters.chat import Button, CodeBlock, Message
from adapters.slack import texts

SECTION_LIMIT = 3000  # characters of mrkdwn per section block
MAX_BLOCKS = 50  # blocks per message
MAX_TEXT_SECTIONS = 10  # beyond this the message text itself goes as a file
FALLBACK_LIMIT = 3000  # the top-level `text` (notifications, screen readers)
FENCE = "```"
ACTION_PREFIX = "labbot:"
GATE_BLOCK_ID = "labbot:gate"
EXTENSIONS = {"json": "json", "yaml": "yaml", "diff": "diff", "jinja": "j2"}

Block = dict[str, Any]

# Slack's own tokens: user/channel mentions and special mentions (<!channel>, <!here>).
_SLACK_TOKEN = re.compile(r"(<(?:@[UW][A-Z0-9]+|#C[A-Z0-9]+(?:\|[^<>]*)?|![a-z]+)>)")


@dataclass(frozen=True)
class SlackFile:
    """A file uploaded into the thread (files_upload_v2): text, or bytes (a picture, a page)."""

    filename: str
    title: str
    content: str | bytes


@dataclass(frozen=True)
class Rendered:
    text: str
    blocks: list[Block]
    files: tuple[SlackFile, ...]


def escape(text: str, keep: Collection[str] = ()) -> str:
    """Escape &, <, > as Slack requires. Only the mentions in `keep` (those the bot placed,
    `Message.mentions`) stay live: a `<!channel>` or `<@U…>` typed by a person or written by
    an LLM is shown as text and notifies nobody."""
    parts = _SLACK_TOKEN.split(text)
    return "".join(
        part
        if index % 2 and part in keep
        else part.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        for index, part in enumerate(parts)
    )


def split_text(text: str, limit: int) -> list[str]:
    """Split (already escaped) text into chunks of at most `limit` characters, at line ends
    where possible, never inside an `&amp;`-style entity."""
    chunks: list[str] = []
    current = ""
    for line in text.split("\n"):
        for piece in _wrap(line, limit):
            if current and len(current) + 1 + len(piece) > limit:
                chunks.append(current)
                current = piece
            else:
                current = f"{current}\n{piece}" if current else piece
    chunks.append(current)
    return chunks


def _wrap(line: str, limit: int) -> Iterator[str]:
    while len(line) > limit:
        cut = limit
        amp = line.rfind("&", max(cut - 4, 1), cut)
        if amp != -1 and ";" not in line[amp:cut]:
            cut = amp
        yield line[:cut]
        line = line[cut:]
    yield line


def _section(text: str) -> Block:
    return {"type": "section", "text": {"type": "mrkdwn", "text": text}}


def _code_sections(block: CodeBlock) -> list[Block]:
    """One code block as sections of fenced text, the title in bold on the first."""
    title = f"*{escape(block.title)}*\n" if block.title else ""
    body = escape(block.text).replace(FENCE, "`\u200b``") or " "
    room = SECTION_LIMIT - len(FENCE) * 2 - 2 - len(title)
    return [
        _section(f"{title if n == 0 else ''}{FENCE}\n{chunk}\n{FENCE}")
        for n, chunk in enumerate(split_text(body, room))
    ]


def _plain(text: str, limit: int = 75) -> Block:
    return {"type": "plain_text", "text": text[:limit], "emoji": True}


def _button(button: Button) -> Block:
    element: Block = {
        "type": "button",
        "action_id": ACTION_PREFIX + button.choice,
        "text": _plain(button.label),
        "value": button.value,
    }
    if button.style != "default":
        element["style"] = button.style
    if button.confirm:
        element["confirm"] = {
            "title": _plain(texts.CONFIRM_TITLE, 100),
            "text": {"type": "mrkdwn", "text": escape(button.confirm)[:300]},
            "confirm": _plain(button.label, 30),
            "deny": _plain(texts.CONFIRM_DENY, 30),
        }
    return element


def _tail(message: Message) -> list[Block]:
    tail: list[Block] = []
    if message.buttons:
        tail.append(
            {
                "type": "actions",
                "block_id": GATE_BLOCK_ID,
                "elements": [_button(b) for b in message.buttons],
            }
        )
    if message.footer:
        tail.append(footer_block(message.footer, message.mentions))
    return tail


def footer_block(footer: str, mentions: Collection[str] = ()) -> Block:
    """The context line under a decided gate: who decided it (`mentions`: the markup in it the
    bot placed on purpose)."""
    return _context(escape(footer, mentions))


def _context(text: str) -> Block:
    return {"type": "context", "elements": [{"type": "mrkdwn", "text": text[:SECTION_LIMIT]}]}


def _filename(block: CodeBlock, index: int) -> str:
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "-", block.title).strip("-").lower() or f"output-{index}"
    return f"{stem}.{EXTENSIONS.get(block.language, 'txt')}"


def _files(blocks: Sequence[CodeBlock]) -> tuple[SlackFile, ...]:
    return tuple(
        SlackFile(_filename(b, n), b.title or f"output {n}", b.text)
        for n, b in enumerate(blocks, 1)
    )


def _attached(message: Message) -> tuple[SlackFile, ...]:
    """The message's files as uploads; Slack shows an uploaded image inline in the thread."""
    return tuple(SlackFile(f.name, f.alt or f.name, f.data) for f in message.files)


def render(message: Message, *, uploading: bool = True) -> Rendered:
    """Block Kit for `message`; `uploading=False` (an update) notes files uploaded earlier."""
    text = texts.LEVEL_PREFIX[message.level] + message.text
    escaped = escape(text, message.mentions)
    head = [_section(chunk) for chunk in split_text(escaped or " ", SECTION_LIMIT)]
    spilled: list[CodeBlock] = list(message.attachments)
    if len(head) > MAX_TEXT_SECTIONS:
        spilled.insert(0, CodeBlock(message.text, "text", "message"))
        head = head[:1]
    tail = _tail(message)
    room = MAX_BLOCKS - len(head) - len(tail) - 1  # one block kept for a note
    body: list[Block] = []
    overflow: list[CodeBlock] = []
    for block in message.blocks:
        sections = _code_sections(block)
        if overflow or len(body) + len(sections) > room:
            overflow.append(block)
        else:
            body.extend(sections)
    notes = _notes(message.attachments, overflow, uploading)
    files = _files([*spilled, *overflow]) + _attached(message) if uploading else ()
    fallback = _fallback(escape(text.strip() or message.footer or "labbot", message.mentions))
    return Rendered(fallback, [*head, *body, *notes, *tail], files)


def _notes(
    attachments: Sequence[CodeBlock], overflow: Sequence[CodeBlock], uploading: bool
) -> list[Block]:
    notes: list[str] = []
    if attachments:
        titles = ", ".join(b.title or "output" for b in attachments)
        notes.append(texts.ATTACHED.format(titles=escape(titles)))
    if overflow:
        template = texts.OVERFLOW_UPLOADED if uploading else texts.OVERFLOW_EARLIER
        notes.append(template.format(count=len(overflow)))
    return [_context(" ".join(notes))] if notes else []


def _fallback(text: str) -> str:
    if len(text) <= FALLBACK_LIMIT:
        return text
    return text[: FALLBACK_LIMIT - 1] + "…"
