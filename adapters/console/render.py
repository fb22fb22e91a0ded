"""Neutral messages rendered for a terminal with rich: the presenter's marks as terminal styles
(bold, italics, code), code blocks highlighted, buttons as numbered choices. Pure."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.syntax import Syntax
from rich.text import Text

from adapters.chat import Message
from adapters.console import texts
from adapters.marks import spans

__all__ = ["render_message", "styled"]

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


def render_message(
    message: Message, *, author: str = "labbot", typed_here: bool = True
) -> RenderableType:
    """`message` in a panel; its buttons as numbered choices, typed here or (`typed_here`
    False: a process that reads no keyboard) decided by people in `labbot console`."""
    parts: list[RenderableType] = [styled(message.text)]
    for block in (*message.blocks, *message.attachments):
        if block.title:
            parts.append(styled(block.title, "bold"))
        parts.append(Syntax(block.text, LEXERS.get(block.language, "text"), word_wrap=True))
    if message.buttons:
        numbered = (f"[{n}] " if typed_here else "" for n in range(1, len(message.buttons) + 1))
        choices = "  ".join(f"{n}{b.label}" for n, b in zip(numbered, message.buttons, strict=True))
        how = texts.TYPE_CHOICE if typed_here else texts.DECIDE_ELSEWHERE
        parts.append(Text(f"{choices}   {how}", style="bold"))
    if message.footer:
        parts.append(styled(message.footer, "bold"))
    title = author if not message.ephemeral_to else f"{author} → only {message.ephemeral_to}"
    return Panel(Group(*parts), title=Text(title), border_style=LEVEL_STYLE[message.level])
