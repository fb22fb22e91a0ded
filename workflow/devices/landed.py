"""What a push that failed left on a device, from the config read back after it (pure).

The record is the device's truth, never the error's type: a session that fails at `end` has
applied every line, one dropped at the third line two of them. The lines the device holds now
are decided as the push's own verification decides them (`diffing.line_presence`); a device
none of whose lines shows but whose configuration differs from its "before" backup is said to
hold some (its changed lines), never none.
"""

from __future__ import annotations

from collections.abc import Sequence

from workflow.devices.diffing import landed_paths, line_presence
from workflow.model import Landed

__all__ = ["anything_landed"]


def landed_on(before: str, after: str, lines: Sequence[str], platform: str) -> Landed:
    """What of `lines` the device holds in `after` (read back), its `before` backup beside."""
    presence = line_presence(after, lines, platform)
    held = [line for line, present in presence if present]
    total = len(presence)
    if held and len(held) == total:
        return Landed(kind="all", lines=held, total=total)
    if held:
        return Landed(kind="some", lines=held, total=total)
    changed = [" > ".join(path) for path in landed_paths(before, after, platform)]
    if changed:
        return Landed(kind="some", lines=changed, total=total)
    return Landed(kind="none", lines=[], total=total)


def landed_unknown(lines: Sequence[str], unread: str, platform: str = "") -> Landed:
    """The read back failed (`unread`, the bot's words): what landed is unknown, never none."""
    total = len(line_presence("", lines, platform))
    return Landed(kind="unknown", lines=[], total=total, unread=unread)


def anything_landed(landed: Landed | None) -> bool:
    """Whether the device may hold some of the push (unknown may): a rollback is offered."""
    return landed is not None and landed["kind"] != "none"
