"""Texts an LLM writes for people to read (a template's name and description, a diagnosis, the
change it proposes) are cut to a size before they are shown or stored, with a note saying so:
a model that writes megabytes must not become a megabyte gate, audit row or checkpoint."""

from __future__ import annotations

NAME_CHARS = 80  # a template's name
TEXT_CHARS = 4000  # a description, a diagnosis, a proposed change
CUT_NOTE = " … [cut: the LLM wrote {size:,} characters; the first {kept:,} are kept]"


def capped(text: str, limit: int = TEXT_CHARS) -> str:
    """`text` itself when it fits in `limit` characters, else its start and the note."""
    if len(text) <= limit:
        return text
    return text[:limit] + CUT_NOTE.format(size=len(text), kept=limit)
