"""Secrets kept out of what people read, and nothing else hidden.

- `mask_secrets`: a secret VALUE in configuration text (login passwords, enable secrets, SNMP
  communities, routing-protocol and AAA keys) is shown as `‹secret sha256:ab12…›`; the words
  around it stay, so a reviewer sees exactly which line is approved (and two lines with the same
  value show the same hash). The hashes behind the buttons cover the real lines.
- `mask_said`: the same for what people typed (a request, a Modify feedback) wherever the bot
  shows it again: the value after a secret-ish keyword (`community to s3cr3t`, `tacacs key X`,
  `password: "a b"`; the rule is base.said_secrets) is masked.
- `Scrubber`: the credentials labbot itself holds (device password and enable secret, chat
  tokens, the LLM key — setting values) are replaced by `‹LABBOT_DEVICE_PASSWORD›` wherever they
  would appear: chat texts, errors, log lines, audit rows. A value of any length is replaced
  where it stands as a token of its own; a long one (8+ characters) inside other text too.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

from adapters.chat import ChatAdapter, CodeBlock, EventHandler, Message, ThreadRef
from base.said_secrets import SAID_SECRET, value_span

# Each pattern's last group is the secret value; what precedes it stays readable.
_SECRETS = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        r"(\bsnmp-server\s+community\s+)(\S+)",
        r"(\b(?:password|secret)(?:\s+[0-9])?\s+)(\S+)",
        r"(\b(?:key-string|authentication-key)(?:\s+[0-9])?\s+)(\S+)",
        r"(\bmessage-digest-key\s+\d+\s+md5(?:\s+[0-9])?\s+)(\S+)",
        r"(\b(?:tacacs-server|radius-server)\s+(?:.*\s)?key(?:\s+[0-9])?\s+)(\S+)",
        r"((?<![\w-])key\s+[0-9]\s+)(\S+)",
    )
)
_FREE_TEXT = re.compile(r"^[-+ ]*\s*(description|remark|alias)\b", re.IGNORECASE)
_SECRET_NAME = re.compile(r"password|secret|community|(?:^|_)key$", re.IGNORECASE)
SCRUB_ANYWHERE_CHARS = 8  # a shorter value is replaced only as a token, not inside longer words


def masked(value: str) -> str:
    """How a secret value is shown: a short hash, never the value."""
    return f"‹secret sha256:{hashlib.sha256(value.encode()).hexdigest()[:4]}…›"


def mask_secrets(text: str) -> str:
    return "\n".join(_mask_line(line) for line in text.split("\n"))


def _mask_line(line: str) -> str:
    if _FREE_TEXT.match(line):  # people's words, not secrets
        return line
    values: list[tuple[int, int]] = []  # spans of secret values, left to right
    for match in sorted(
        (m for pattern in _SECRETS for m in pattern.finditer(line)), key=lambda m: m.start()
    ):
        inside = any(start <= match.start() < end for start, end in values)
        placeholder = match.group(2).startswith("{")  # a template's `{{ community }}`
        if not inside and not placeholder and all(match.start(2) >= end for _, end in values):
            values.append(match.span(2))
    for start, end in reversed(values):
        line = line[:start] + masked(line[start:end]) + line[end:]
    return line


def mask_said(text: str) -> str:
    """Someone's words as the bot shows them again: each value after a secret-ish keyword
    masked (inside its quotes, when quoted), everything else as typed."""
    return SAID_SECRET.sub(_mask_said_value, text)


def _mask_said_value(match: re.Match[str]) -> str:
    start, end = (at - match.start() for at in value_span(match))  # its quotes stay
    said = match.group(0)
    return said[:start] + masked(said[start:end]) + said[end:]


def mask_param(name: str, value: Any) -> Any:
    """A parameter as shown: secret values in its strings masked; a parameter named like a
    secret (`password`, `community`, `*_key`) shown only as its hash."""
    if isinstance(value, str):
        return masked(value) if _SECRET_NAME.search(name) else mask_secrets(value)
    if isinstance(value, list):
        return [mask_param(name, item) for item in value]
    if isinstance(value, dict):
        return {k: mask_param(k, v) for k, v in value.items()}
    return value


@dataclass(frozen=True)
class Scrubber:
    """Replaces known credential values (setting name → value) wherever they appear."""

    secrets: Mapping[str, str]

    @classmethod
    def of(cls, named: Iterable[tuple[str, str | None]]) -> Scrubber:
        found = {v: k for k, v in named if v}
        return cls({name: value for value, name in found.items()})

    @cached_property
    def _patterns(self) -> tuple[tuple[re.Pattern[str], str], ...]:
        """Longest values first, so a value containing a shorter one is replaced whole."""
        ordered = sorted(self.secrets.items(), key=lambda item: -len(item[1]))
        return tuple((_occurrences(value), f"‹{name}›") for name, value in ordered)

    def __call__(self, text: str) -> str:
        for pattern, shown in self._patterns:
            text = pattern.sub(shown, text)
        return text

    def message(self, message: Message) -> Message:
        return replace(
            message,
            text=self(message.text),
            footer=self(message.footer),
            blocks=tuple(self._block(b) for b in message.blocks),
            attachments=tuple(self._block(b) for b in message.attachments),
        )

    def _block(self, block: CodeBlock) -> CodeBlock:
        return replace(block, text=self(block.text), title=self(block.title))


def _occurrences(value: str) -> re.Pattern[str]:
    """Where a value is replaced: as a token of its own (`cisco` in `password cisco`, not in
    `ciscolab` or `cisco_ios`); a long value anywhere (inside a URL or a quoted error body)."""
    if len(value) >= SCRUB_ANYWHERE_CHARS:
        return re.compile(re.escape(value))
    return re.compile(rf"(?<!\w){re.escape(value)}(?!\w)")


class ScrubbedAdapter:
    """A chat adapter whose every post and update goes out scrubbed (what the bot says may
    quote a device's or an LLM endpoint's error text)."""

    def __init__(self, inner: ChatAdapter, scrub: Scrubber) -> None:
        self.inner, self.scrub = inner, scrub
        self.platform = inner.platform

    async def run(self, handler: EventHandler) -> None:
        await self.inner.run(handler)

    async def post(self, thread: ThreadRef, message: Message) -> str:
        return await self.inner.post(thread, self.scrub.message(message))

    async def update(self, thread: ThreadRef, message_id: str, message: Message) -> None:
        await self.inner.update(thread, message_id, self.scrub.message(message))


class ScrubLogs(logging.Filter):
    """A log handler filter: the formatted message and any traceback, scrubbed."""

    def __init__(self, scrub: Scrubber) -> None:
        super().__init__()
        self.scrub = scrub

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg, record.args = self.scrub(record.getMessage()), None
        if record.exc_info:
            record.exc_text = self.scrub(logging.Formatter().formatException(record.exc_info))
            record.exc_info = None
        return True


def scrub_logs(scrub: Scrubber) -> None:
    """Scrub every log line the root logger's handlers write from now on."""
    for handler in logging.getLogger().handlers:
        handler.addFilter(ScrubLogs(scrub))
