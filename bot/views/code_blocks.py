"""Neutral messages from sections of text: long text split into code blocks at line boundaries
(Slack sections hold 3000 characters), huge bodies sent as attachments. Pure.

A line is never cut here: blocks are masked after they are built (bot.views.redact.ScrubbedAdapter),
and a secret is found by its whole line (a quoted Junos key with spaces needs both quotes). A
line longer than a block is a block of its own, which the chat adapter cuts once masked."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from adapters.chat import CodeBlock, Message

__all__ = ["code_blocks", "present_table"]

BLOCK_LIMIT = 2800  # characters per code block chunk (Slack sections hold 3000)
ATTACH_LIMIT = 40_000  # longer text goes as a file


def code_blocks(text: str, language: str = "", title: str = "") -> list[CodeBlock]:
    """Split long text into blocks at line boundaries; each chunk keeps the title."""
    chunks: list[str] = []
    current: list[str] = []
    size = 0
    for line in text.splitlines() or [""]:
        if current and size + len(line) + 1 > BLOCK_LIMIT:
            chunks.append("\n".join(current))
            current, size = [], 0
        current.append(line)
        size += len(line) + 1
    chunks.append("\n".join(current))
    total = len(chunks)
    return [
        CodeBlock(chunk, language, f"{title} ({n}/{total})" if total > 1 and title else title)
        for n, chunk in enumerate(chunks, 1)
    ]


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
