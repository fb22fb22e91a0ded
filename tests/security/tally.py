"""Counts of hostile attempts replayed by tests/security, per class: tried and refused.

Each test records what it tried (`attempt(cls, refused)`); tests/security/summary.py prints the
table at the end of the run (adding up the counts of every xdist worker), so the closing note can
quote the counts.
"""

from __future__ import annotations

from collections import Counter

TRIED: Counter[str] = Counter()
REFUSED: Counter[str] = Counter()


def attempt(kind: str, refused: bool) -> None:
    """Record one attempt of class `kind` and whether it was refused (or harmless)."""
    TRIED[kind] += 1
    REFUSED[kind] += int(refused)


def counts() -> dict[str, dict[str, int]]:
    """This process's counts, as plain data an xdist worker can send to the controller."""
    return {"tried": dict(TRIED), "refused": dict(REFUSED)}


def add(counted: dict[str, dict[str, int]]) -> None:
    """Add another process's `counts()` to this one's."""
    TRIED.update(counted["tried"])
    REFUSED.update(counted["refused"])


def table() -> list[str]:
    width = max((len(kind) for kind in TRIED), default=5)
    rows = [f"{'class'.ljust(width)}  tried  refused"]
    for kind in sorted(TRIED):
        rows.append(f"{kind.ljust(width)}  {TRIED[kind]:5d}  {REFUSED[kind]:7d}")
    return rows
