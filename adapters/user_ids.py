"""User and room ids: the Matrix grammar, one form per platform, and ids a person reads as one.

- Matrix (spec, appendix "Identifier Grammar"): a user id is `@localpart:server_name`, the
  localpart printable ASCII but `:` (the historical grammar every server must still accept; new
  ones are lower case), at most 255 bytes. The localpart compares exactly; the server name is a
  host name (DNS names ignore case, RFC 4343), so it is compared case-folded. A room is
  `!opaque` (its id) or `#alias:server_name`.
- Every id is NFKC-normalised and trimmed (`＠bob:hs ` is `@bob:hs`); console names ignore case.
- Ids a person would read as one (`@bob:hs`, `@BOB:hs`, `rооt` with Cyrillic о, `root`) share a
  `look_alike_key`: the UTS #39 confusable skeleton of the case-folded id. Slack ids (`U0123`)
  are opaque and shown by name, so they keep their exact form.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable

__all__ = [
    "canonical_user_id",
    "is_matrix_room",
    "is_matrix_user_id",
    "look_alike_key",
    "look_alikes",
    "meant_as_matrix_user",
]

_HOST = r"(?:\d{1,3}(?:\.\d{1,3}){3}|\[[0-9A-Fa-f:.]{2,45}\]|[A-Za-z0-9.-]{1,255})"
_SERVER_NAME = rf"{_HOST}(?::\d{{1,5}})?"
_USER_ID = re.compile(rf"@[\x21-\x39\x3b-\x7e]+:{_SERVER_NAME}")
_ROOM = re.compile(rf"![\x21-\x7e]+|#[^:\x00\s]+:{_SERVER_NAME}")
MAX_ID_BYTES = 255


def is_matrix_user_id(text: str) -> bool:
    return len(text.encode()) <= MAX_ID_BYTES and _USER_ID.fullmatch(text) is not None


def is_matrix_room(text: str) -> bool:
    """A room id (`!…`) or alias (`#name:server`)."""
    return len(text.encode()) <= MAX_ID_BYTES and _ROOM.fullmatch(text) is not None


def meant_as_matrix_user(token: str) -> bool:
    """Whether a who-token is written as a Matrix user id would be (`@name:server`, also in
    full-width or other compatibility forms), so it must be a valid one."""
    text = unicodedata.normalize("NFKC", token).strip()
    return text.startswith("@") and ":" in text


def canonical_user_id(user_id: str) -> str:
    """A user id as its platform compares ids: NFKC, trimmed; console names ignore case
    (`console:Bob` is `console:bob`); a Matrix server name ignores case; Slack ids are exact."""
    text = unicodedata.normalize("NFKC", user_id).strip()
    platform, sep, name = text.partition(":")
    if sep and platform == "console":
        return f"console:{name.strip().casefold()}"
    if text.startswith("@") and sep:
        return f"{platform}:{name.lower()}"
    return text


def look_alike_key(user_id: str) -> str:
    """Equal for two ids a person would read as one name (never two approvals)."""
    canonical = canonical_user_id(user_id)
    if not canonical.startswith(("@", "console:")):
        return canonical
    return skeleton(canonical.casefold())


def look_alikes(ids: Iterable[str]) -> tuple[str, str] | None:
    """Two of `ids` that are not one id but look like one (None: no such pair)."""
    seen: dict[str, str] = {}
    for user_id in ids:
        key, canonical = look_alike_key(user_id), canonical_user_id(user_id)
        first = seen.setdefault(key, user_id)
        if canonical_user_id(first) != canonical:
            return first, user_id
    return None


def skeleton(text: str) -> str:
    """UTS #39 skeleton: NFD, default-ignorable (format) characters dropped, each character
    replaced by its confusable prototype, NFD again."""
    prototypes = _prototypes()
    decomposed = unicodedata.normalize("NFD", text)
    mapped = "".join(prototypes.get(c, c) for c in decomposed if unicodedata.category(c) != "Cf")
    return unicodedata.normalize("NFD", mapped)


@functools.cache
def _prototypes() -> dict[str, str]:
    """Each confusable character -> its prototype, from Unicode's confusables.txt as
    confusable-homoglyphs ships it. That table lists every pair both ways: a character with one
    homoglyph that is a sequence or has several of its own is a source, the homoglyph its
    prototype; a lone pair (either could be the prototype) maps both to one of them."""
    from confusable_homoglyphs.confusables import confusables_data

    table: dict[str, str] = {}
    for char, glyphs in confusables_data.items():
        if len(char) != 1 or len(glyphs) != 1:
            continue  # a sequence, or a prototype several characters look like
        other = str(glyphs[0]["c"])
        alone = len(other) == 1 and len(confusables_data.get(other, ())) == 1
        table[char] = min(char, other) if alone else other
    return table
