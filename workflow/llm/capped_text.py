"""Texts an LLM writes for people to read (a template's name and description, a diagnosis, the
change it proposes) are cut to a size before they are shown or stored, with a note saying so:
a model that writes megabytes must not become a megabyte gate, audit row or checkpoint.

The same note ends a text the LLM's wire already cut (workflow.llm.bounded_json), so a text cut
twice says how much was left out in all."""

from __future__ import annotations

import re

__all__ = ["capped"]

NAME_CHARS = 80  # a template's name
TEXT_CHARS = 4000  # a description, a diagnosis, a proposed change
_NOTE = " … [cut: {more:,} characters more]"
_NOTED = re.compile(r" … \[cut: ([\d,]+) characters more\]\Z")


def cut_note(more: int) -> str:
    """What ends a text of which `more` characters were left out."""
    return _NOTE.format(more=more)


def holds_cut_text(value: object) -> bool:
    """Some string in `value` (a JSON-like value) ends with the note: it was cut on the wire."""
    if isinstance(value, str):
        return _NOTED.search(value) is not None
    if isinstance(value, dict):
        value = list(value.values())
    return isinstance(value, list) and any(holds_cut_text(item) for item in value)


def capped(text: str, limit: int = TEXT_CHARS) -> str:
    """`text` itself when it fits in `limit` characters, else its start and the note."""
    noted = _NOTED.search(text)
    kept, more = (text[: noted.start()], int(noted[1].replace(",", ""))) if noted else (text, 0)
    if len(kept) <= limit:
        return text
    return kept[:limit] + cut_note(len(kept) - limit + more)
