"""The presenter's inline marks in a message's text — `*bold*`, `_italic_`, `code` — found once,
for every adapter that renders them its own way (Matrix HTML, terminal styles). Pure."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

__all__ = ["BOLD", "CODE", "ITALIC", "spans"]

BOLD = re.compile(r"\*([^*\n]+)\*")
CODE = re.compile(r"`([^`\n]+)`")
ITALIC = re.compile(r"(?<!\w)_([^_\n]+)_(?!\w)")

Mark = Literal["bold", "italic", "code"]
_MARKS: tuple[tuple[Mark, re.Pattern[str]], ...] = (
    ("code", CODE),  # first: what is inside backticks is literal
    ("bold", BOLD),
    ("italic", ITALIC),
)


@dataclass(frozen=True)
class Span:
    """A run of text and the marks around it (outermost first)."""

    text: str
    marks: tuple[Mark, ...] = ()


def spans(text: str, outer: tuple[Mark, ...] = ()) -> list[Span]:
    """`text` cut into runs without their marks; bold and italic may hold code or each other."""
    if "code" in outer:
        return [Span(text, outer)] if text else []
    first: tuple[int, Mark, re.Match[str]] | None = None
    for mark, pattern in _MARKS:
        match = pattern.search(text)
        if match is not None and (first is None or match.start() < first[0]):
            first = (match.start(), mark, match)
    if first is None:
        return [Span(text, outer)] if text else []
    _, mark, match = first
    before = [Span(text[: match.start()], outer)] if match.start() else []
    inner = spans(match.group(1), (*outer, mark))
    return before + inner + spans(text[match.end() :], outer)
