"""Text bounded at whole lines, so it is masked before any cut: a secret is found by its line
(a quoted Junos key with spaces needs both its quotes), so a line is kept whole or left out with
a note, never kept in part. Pure."""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["whole_lines"]


def whole_lines(text: str, limit: int, left_out: Callable[[int], str]) -> str:
    """The first lines of `text` that fit in `limit` characters, each whole; a line longer than
    `limit` on its own is `left_out(its length)` in its place."""
    kept: list[str] = []
    size = 0
    for line in text.split("\n"):
        shown = line if len(line) <= limit else left_out(len(line))
        if kept and size + 1 + len(shown) > limit:
            break
        kept.append(shown)
        size += len(shown) + (1 if len(kept) > 1 else 0)
    return "\n".join(kept)
