"""Neutral messages rendered for a terminal with rich. Pure (returns renderables)."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.syntax import Syntax
from rich.text import Text

from adapters.chat import Message

LEVEL_STYLE = {"info": "cyan", "success": "green", "warning": "yellow", "error": "red"}
LEXERS = {"jinja": "jinja", "json": "json", "yaml": "yaml", "diff": "diff", "text": "text"}


def render_message(message: Message, *, author: str = "labbot") -> RenderableType:
    parts: list[RenderableType] = [Text(message.text)]
    for block in (*message.blocks, *message.attachments):
        if block.title:
            parts.append(Text(block.title, style="bold"))
        parts.append(Syntax(block.text, LEXERS.get(block.language, "text"), word_wrap=True))
    if message.buttons:
        choices = "  ".join(f"[{n}] {b.label}" for n, b in enumerate(message.buttons, 1))
        parts.append(Text(f"{choices}   (type the number; 2 asks what to change)", style="bold"))
    if message.footer:
        parts.append(Text(message.footer, style="bold"))
    title = author if not message.ephemeral_to else f"{author} → only {message.ephemeral_to}"
    return Panel(Group(*parts), title=title, border_style=LEVEL_STYLE[message.level])
