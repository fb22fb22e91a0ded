"""Neutral messages from sections of text: long text split into code blocks at line boundaries
(Slack sections hold 3000 characters), huge bodies sent as attachments. Pure."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from adapters.chat import CodeBlock, Message

BLOCK_LIMIT = 2800  # characters per code block chunk (Slack sections hold 3000)
ATTACH_LIMIT = 40_000  # longer text goes as a file


def code_blocks(text: str, language: str = "", title: str = "") -> list[CodeBlock]:
    """Split long text into blocks at line boundaries; each chunk keeps the title."""
    chunks: list[str] = []
    current: list[str] = []
    size = 0
    for line in text.splitlines() or [""]:
        for piece in _hard_wrap(line):
            if current and size + len(piece) + 1 > BLOCK_LIMIT:
                chunks.append("\n".join(current))
                current, size = [], 0
            current.append(piece)
            size += len(piece) + 1
    chunks.append("\n".join(current))
    total = len(chunks)
    return [
        CodeBlock(chunk, language, f"{title} ({n}/{total})" if total > 1 and title else title)
        for n, chunk in enumerate(chunks, 1)
    ]


def _hard_wrap(line: str) -> Iterable[str]:
    for start in range(0, max(len(line), 1), BLOCK_LIMIT):
        yield line[start : start + BLOCK_LIMIT]


def sections_message(text: str, sections: Sequence[tuple[str, str, str]], **fields: Any) -> Message:
    """Build a message from (title, body, language) sections; huge bodies become attachments."""
    blocks: list[CodeBlock] = []
    attachments: list[CodeBlock] = []
    for title, body, language in sections:
        if len(body) > ATTACH_LIMIT:
            attachments.append(CodeBlock(body, language, title))
        else:
            blocks.extend(code_blocks(body, language, title))
    return Message(text=text, blocks=tuple(blocks), attachments=tuple(attachments), **fields)


def present_table(title: str, table: str) -> Message:
    return sections_message(title, [("", table, "text")])
