"""Neutral messages rendered for a terminal with rich: the presenter's marks as terminal styles
(bold, italics, code), code blocks highlighted, buttons as numbered choices. Pure."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.syntax import Syntax
from rich.text import Text

from adapters.chat import Message
from adapters.marks import spans

LEVEL_STYLE = {"info": "cyan", "success": "green", "warning": "yellow", "error": "red"}
LEXERS = {"jinja": "jinja", "json": "json", "yaml": "yaml", "diff": "diff", "text": "text"}
MARK_STYLE = {"bold": "bold", "italic": "italic", "code": "bold cyan"}


def styled(text: str, style: str = "") -> Text:
    """`text` with its `*bold*`, `_italic_` and `code` marks shown as styles, not characters;
    the text is never read as rich markup (a `[red]` someone typed stays as typed)."""
    shown = Text(style=style)
    for span in spans(text):
        shown.append(span.text, style=" ".join(MARK_STYLE[mark] for mark in span.marks))
    return shown


def render_message(message: Message, *, author: str = "labbot") -> RenderableType:
    parts: list[RenderableType] = [styled(message.text)]
    for block in (*message.blocks, *message.attachments):
        if block.title:
            parts.append(styled(block.title, "bold"))
        parts.append(Syntax(block.text, LEXERS.get(block.language, "text"), word_wrap=True))
    if message.buttons:
        choices = "  ".join(f"[{n}] {b.label}" for n, b in enumerate(message.buttons, 1))
        parts.append(Text(f"{choices}   (type the number; 2 asks what to change)", style="bold"))
    if message.footer:
        parts.append(styled(message.footer, "bold"))
    title = author if not message.ephemeral_to else f"{author} → only {message.ephemeral_to}"
    return Panel(Group(*parts), title=Text(title), border_style=LEVEL_STYLE[message.level])
