"""How a line is read and matched against a rule's words (the rule tables are per platform).

A rule is written the way vendor manuals abbreviate commands: ``wr[ite] er[ase]`` matches
``write erase``, ``wr er``, ``wri eras`` (the head is the shortest accepted abbreviation, the
bracketed tail optional). A line matches when its first words match the rule's words, so
``description reload`` (first word "description") passes and ``rel`` does not. ``$`` at the end
means the whole line; a leading ``~`` means the rule also holds under ``no``/``default``/
``undo`` (``~us[ername]`` refuses ``no username admin`` too). Placeholders: ``<mgmt>`` a
management interface name, ``<src>`` any copy source but the running configuration, ``<dst>``
any copy destination but the startup configuration, ``<any>`` one word, ``<nonzero>`` a
number above 0, ``<remote>`` a remote file-transfer URL or scheme, ``<except:a|b>`` one word
that abbreviates none of a, b (``logging 10.6.6.6`` is a log host: any `logging` word IOS does
not know as a keyword), ``...`` any number of words (``snmp-s[erver] c[ommunity] <any> ... rw``).

Before matching, a line is NFKC-normalized, case-folded and split on any whitespace (tabs and
unicode separators included); `Management 1` is joined into one word, as the device reads it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "control_character",
    "names_remote_url",
    "normalize",
    "parse",
    "read_as_control",
    "seven_bit_character",
    "strip_prefixes",
    "unreadable_character",
]

REMOTE_SCHEMES = ("tftp", "ftp", "scp", "sftp", "rcp", "http", "https")
MGMT_WORDS = ("management", "mgmt", "meth", "fxp", "em", "me", "vme")
_NEGATIONS = ("no", "default", "undo")
_ANY_WORDS = "..."


@dataclass(frozen=True)
class Pattern:
    """A rule's words, parsed: (shortest abbreviation, full word) per word."""

    words: tuple[tuple[str, str], ...]
    whole_line: bool
    negatable: bool  # also holds under no/default/undo

    @property
    def key(self) -> str:
        """The first two letters of its first word (rules are indexed by them)."""
        return self.words[0][0][:2]

    def matches(self, tokens: Sequence[str]) -> bool:
        if _matches(tokens, self.words, self.whole_line):
            return True
        negated = self.negatable and bool(tokens) and is_negation(tokens[0])
        return negated and _matches(tokens[1:], self.words, self.whole_line)


def parse(spec: str) -> Pattern:
    words = []
    for part in spec.lstrip("~").rstrip("$").split():
        head, _, tail = part.partition("[")
        words.append((head, head + tail.rstrip("]")))
    return Pattern(tuple(words), spec.endswith("$"), spec.startswith("~"))


def _matches(tokens: Sequence[str], words: Sequence[tuple[str, str]], whole: bool) -> bool:
    if not words:
        return not tokens or not whole
    if words[0][0] == _ANY_WORDS:
        return any(_matches(tokens[skip:], words[1:], whole) for skip in range(len(tokens) + 1))
    return (
        bool(tokens)
        and word_matches(tokens[0], words[0])
        and _matches(tokens[1:], words[1:], whole)
    )


def is_negation(token: str) -> bool:
    return token == "no" or any(len(token) >= 3 and w.startswith(token) for w in _NEGATIONS[1:])


def word_matches(token: str, word: tuple[str, str]) -> bool:
    head, full = word
    if head.startswith("<except:"):
        return not any(_abbreviates(token, known) for known in head[8:-1].split("|"))
    special = _PLACEHOLDERS.get(head)
    if special is not None:
        return special(token)
    return len(token) >= len(head) and full.startswith(token)


def _abbreviates(token: str, word: str) -> bool:
    return len(token) >= 2 and word.startswith(token)


def is_remote(token: str) -> bool:
    """`tftp:`, `tftp://host/file`, `scp:`, or the bare scheme word of an interactive copy."""
    return token.partition(":")[0] in REMOTE_SCHEMES


def names_remote_url(tokens: Sequence[str]) -> bool:
    return any(":" in tok and is_remote(tok) for tok in tokens)


def _file_named(token: str, name: str) -> bool:
    """`running-config`, `run`, `system:running-config`, `nvram:startup-config`."""
    bare = token.rpartition(":")[2] if ":" in token else token
    return len(bare) >= 3 and name.startswith(bare)


def is_management_interface(name: str) -> bool:
    """Management1, Ma1, mgmt0, MEth0/0/1, fxp0, em0, me0 (any case)."""
    match = re.match(r"([a-z-]+)\s*\d", name.casefold())
    if not match:
        return False
    alpha = match.group(1)
    return alpha in MGMT_WORDS or (len(alpha) >= 2 and "management".startswith(alpha))


_PLACEHOLDERS = {
    "<mgmt>": is_management_interface,
    "<src>": lambda token: not _file_named(token, "running-config"),
    "<dst>": lambda token: not _file_named(token, "startup-config"),
    "<any>": lambda token: True,
    "<nonzero>": lambda token: token.isdigit() and int(token) > 0,
    "<remote>": is_remote,
}


def normalize(line: str) -> list[str]:
    """Case-folded words; `Management 1` is joined into one word, as the device reads it."""
    tokens = unicodedata.normalize("NFKC", line).casefold().split()
    for i in range(len(tokens) - 2, -1, -1):
        joined = tokens[i] + tokens[i + 1]
        if tokens[i].isalpha() and tokens[i + 1][:1].isdigit() and is_management_interface(joined):
            tokens[i : i + 2] = [joined]
    return tokens


def strip_prefixes(tokens: list[str], prefixes: Sequence[str]) -> list[str]:
    while tokens and tokens[0] in prefixes:
        tokens = tokens[1:]
    return tokens


# control, format, line and paragraph separators, and lone surrogates (JSON's "\ud800"): no
# device can be sent one, and an encoder replacing it writes `?`
_CONTROL = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})


def control_character(text: str, allowed: str = "") -> str | None:
    """The first character of `text` (not in `allowed`) that can split one line into two on a
    device or hide in it: a control, format, line or paragraph separator, a lone surrogate;
    None when none."""
    return next(
        (ch for ch in text if ch not in allowed and unicodedata.category(ch) in _CONTROL), None
    )


_FREE_TEXT = re.compile(r"\b(description|remark)\b", re.IGNORECASE)


def unreadable_character(line: str) -> str | None:
    """The first character outside printable ASCII in a line's command words (a description
    or remark may hold other text); else None. No command word has one, so a device may read a
    look-alike (`rеload` with a Cyrillic е, U+00A0 as indentation) otherwise than the policy."""
    for position, char in enumerate(line):
        if not _printable(char) and not _FREE_TEXT.search(line[:position]):
            return char
    return None


def seven_bit_character(line: str) -> str | None:
    """The first character of a line a device reading 7 bits reads as a control character or
    `?` (`read_as_control`); else None."""
    return next((char for char in line if not _printable(char) and read_as_control(char)), None)


def _printable(char: str) -> bool:
    return char == "\t" or " " <= char <= "~"


def read_as_control(char: str) -> bool:
    """Whether a device reading 7 bits per character (IOS's default, `exec-character-bits 7`)
    reads a control character (a line feed, carriage return, tab, NUL) or `?` (help) in the
    UTF-8 bytes of `char`: `Ê` is C3 8A, read as `C` and a line feed, so the rest of a
    description would run as a command of its own."""
    return any(0x80 <= byte <= 0x9F or byte == 0xBF for byte in char.encode(errors="replace"))
