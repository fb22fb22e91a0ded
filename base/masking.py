"""How a secret value is shown: `‹secret:3f9a1c›`, a short keyed hash (HMAC-SHA256 with a key
kept outside the database), so a changed secret shows as a change and the same value shows the
same everywhere, while nobody can look a short value up in a dictionary of hashes.

- `config`: configuration or show output, by the per-platform rules (base.secret_rules).
- `said`: what people typed (a request, a Modify feedback), by base.secrets_in_requests.
- `param`: a template parameter: its strings by the rules; a parameter named like a secret
  (`password`, `community`, `*_key`) shown only as its hash.
- `literals`: known values wherever they stand (an LLM may paraphrase a secret it read).
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from base.secret_rules import keyword_lines, secret_spans, unquoted
from base.secrets_in_requests import SAID_SECRET, value_span

__all__ = ["TOKEN", "TOKEN_START", "SecretMask", "occurrences"]

HASH_CHARS = 6
TOKEN_START = (
    "‹secret"  # how every masked value begins (an older release showed `‹secret sha256:…›`)
)
TOKEN = re.compile(rf"{TOKEN_START}:[0-9a-f]{{{HASH_CHARS}}}›")
ANYWHERE_CHARS = 8  # a shorter value is replaced only as a word of its own, not inside words
_SECRET_NAME = re.compile(r"password|secret|community|(?:^|_)key$", re.IGNORECASE)


@dataclass(frozen=True)
class SecretMask:
    """Masks secret values with tokens keyed by `key` (never shown, never stored with them)."""

    key: bytes

    def __repr__(self) -> str:
        return "SecretMask(key=***)"

    @classmethod
    def derived_from(cls, key: bytes) -> SecretMask:
        """A mask keyed apart from `key` (the audit key): one key kept outside the database,
        and a token never helps to forge an audit row."""
        return cls(hmac.new(key, b"labbot secret mask", hashlib.sha256).digest())

    @classmethod
    def random(cls) -> SecretMask:
        """A mask with a key of its own (a service built without settings): tokens are stable
        within the process only."""
        return cls(os.urandom(32))

    def token(self, value: str) -> str:
        digest = hmac.new(self.key, value.encode(), hashlib.sha256).hexdigest()
        return f"{TOKEN_START}:{digest[:HASH_CHARS]}›"

    def config(self, text: str, platform: str | None = None) -> str:
        """Configuration or device output with each secret value replaced by its token."""
        return self.config_values(text, platform)[0]

    def config_values(self, text: str, platform: str | None = None) -> tuple[str, set[str]]:
        """`config`, and the values it masked (without their quotes)."""
        found: set[str] = set()
        lines = text.split("\n")
        for index in keyword_lines(text):  # only lines with a keyword may hold a secret
            lines[index] = self._line(lines[index], platform, found)
        return "\n".join(lines), found

    def _line(self, line: str, platform: str | None, found: set[str]) -> str:
        for start, end in reversed(secret_spans(line, platform)):
            value = unquoted(line[start:end])
            found.add(value)
            shown = self.token(value)
            line = line[:start] + (shown if value == line[start:end] else f'"{shown}"') + line[end:]
        return line

    def said(self, text: str) -> str:
        """Someone's words: each value after a secret-ish keyword masked (inside its quotes,
        when quoted), everything else as typed."""
        return SAID_SECRET.sub(self._said_value, text)

    def _said_value(self, match: re.Match[str]) -> str:
        start, end = (at - match.start() for at in value_span(match))
        said = match.group(0)
        return said[:start] + self.token(said[start:end]) + said[end:]

    def param(self, name: str, value: Any) -> Any:
        """A parameter's value as shown: one named like a secret (`community`, `auth_key`) as
        its token, any other with the secrets in its text masked. Inside a mapping each value
        is named by its key, but a schema's `default`, which is its parameter's value."""
        if isinstance(value, str):
            return self.token(value) if _SECRET_NAME.search(name) else self.config(value)
        if isinstance(value, list):
            return [self.param(name, item) for item in value]
        if isinstance(value, dict):
            return {k: self.param(name if k == "default" else k, v) for k, v in value.items()}
        return value

    def literals(self, text: str, values: Iterable[str]) -> str:
        """`text` with each of `values` replaced by its token wherever it stands: as a word of
        its own, or, when 8 characters or longer, inside other text too. Longest first."""
        present = {v for v in values if v and v in text}  # a substring search each: quick
        if not present:
            return text
        pattern = _any_of(tuple(sorted(present, key=lambda v: (-len(v), v))))
        parts = TOKEN.split(text)  # a token already shown is never masked inside
        tokens = TOKEN.findall(text)
        masked = [pattern.sub(lambda found: self.token(found.group(0)), part) for part in parts]
        return "".join(part + token for part, token in zip(masked, [*tokens, ""], strict=True))


@functools.lru_cache(maxsize=16)
def _any_of(values: tuple[str, ...]) -> re.Pattern[str]:
    """One pattern for all `values` (longest first): one pass over a text, however many."""
    return re.compile("|".join(occurrences(value).pattern for value in values))


def occurrences(value: str) -> re.Pattern[str]:
    """Where a known value is replaced: as a token of its own (`cisco` in `password cisco`, not
    in `ciscolab`); a long value anywhere (inside a URL, a quoted error body)."""
    if len(value) >= ANYWHERE_CHARS:
        return re.compile(re.escape(value))
    return re.compile(rf"(?<!\w){re.escape(value)}(?!\w)")
