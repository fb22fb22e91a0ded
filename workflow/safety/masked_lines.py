"""A line carrying a masked secret is never pushed: the mask would become the device's password,
key or community. Views show secrets masked (`********` for the login labbot holds, `‹secret
…›` for the secret rule set); backups, rollbacks and pushes work on the device's own
text, so a mask in a line to push is a fault (a backup taken masked, a line copied from a
view) and is refused, never sent."""

from __future__ import annotations

import re

from base.masking import TOKEN_START

__all__ = ["SECRET_MASK", "mask_in"]

SECRET_MASK = "********"  # what the login labbot holds is replaced with where it is shown
VIEW_MASK = TOKEN_START  # how a masked value begins in views (`‹secret:3f9a1c›`)
# the login's mask standing apart (a word, or quoted: `password "********"`, as a short login
# inside quotes is masked): a banner's row of stars is not one
_MASKS = re.compile(rf"(?<![\w*])({re.escape(SECRET_MASK)})(?![\w*])|({re.escape(VIEW_MASK)})")


def mask_in(line: str) -> str | None:
    """The mask `line` carries, if any."""
    found = _MASKS.search(line)
    return None if found is None else (found.group(1) or found.group(2)).strip()
