"""Secrets kept out of what people read, and nothing else hidden.

- Secret values in configuration and device output (base.secret_rules, masked by
  base.masking.SecretMask as `‹secret:3f9a1c›`) are masked by the presenters where they show
  them, and again in every code block the bot posts (`ScrubbedAdapter`) and every log line
  (`ScrubLogs`), whatever produced it (a device's error, a refused line, a post-check's output).
- `Scrubber`: the credentials labbot itself holds (device password and enable secret, chat
  tokens, the LLM key — setting values) are replaced by `‹LABBOT_DEVICE_PASSWORD›` wherever they
  would appear: chat texts, errors, log lines, audit rows. A value of any length is replaced
  where it stands as a token of its own; a long one (8+ characters) inside other text too.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from functools import cached_property

from adapters.chat import ChatAdapter, CodeBlock, EventHandler, Message, PlaceIds, ThreadRef
from base.masking import SecretMask, occurrences

__all__ = ["ScrubbedAdapter", "Scrubber", "scrub_logs"]


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
        return tuple((occurrences(value), f"‹{name}›") for name, value in ordered)

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


class ScrubbedAdapter:
    """A chat adapter whose every post, update and gate footer goes out scrubbed, its code
    blocks with their secret values masked (what the bot says may quote a device's or an LLM
    endpoint's error text, a refused line, a post-check's output)."""

    def __init__(self, inner: ChatAdapter, scrub: Scrubber, mask: SecretMask) -> None:
        self.inner, self.scrub, self.mask = inner, scrub, mask
        self.platform = inner.platform

    async def run(self, handler: EventHandler) -> None:
        await self.inner.run(handler)

    async def post(self, thread: ThreadRef, message: Message) -> str:
        return await self.inner.post(thread, self._shown(message))

    async def update(self, thread: ThreadRef, message_id: str, message: Message) -> None:
        await self.inner.update(thread, message_id, self._shown(message))

    async def close_gate(
        self, thread: ThreadRef, message_id: str, footer: str, mentions: tuple[str, ...] = ()
    ) -> None:
        await self.inner.close_gate(thread, message_id, self.scrub(footer), mentions)

    async def place_id(self, place: str) -> str | None:
        """The id of a place written by name (adapters.chat.PlaceIds), where the platform
        resolves names; elsewhere the place as written."""
        if isinstance(self.inner, PlaceIds):
            return await self.inner.place_id(place)
        return place

    def _shown(self, message: Message) -> Message:
        masked = replace(
            message,
            blocks=tuple(self._masked(b) for b in message.blocks),
            attachments=tuple(self._masked(b) for b in message.attachments),
        )
        return self.scrub.message(masked)

    def _masked(self, block: CodeBlock) -> CodeBlock:
        return replace(block, text=self.mask.config(block.text))


class ScrubLogs(logging.Filter):
    """A log handler filter: the formatted message and any traceback, scrubbed, their secret
    values masked (a log line may quote a device's output or a configuration line)."""

    def __init__(self, scrub: Scrubber, mask: SecretMask) -> None:
        super().__init__()
        self.scrub, self.mask = scrub, mask

    def _shown(self, text: str) -> str:
        return self.mask.config(self.scrub(text))

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg, record.args = self._shown(record.getMessage()), None
        if record.exc_info:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
            record.exc_info = None
        # a traceback another handler's filter already turned into text is scrubbed again here
        if record.exc_text:
            record.exc_text = self._shown(record.exc_text)
        if record.stack_info:
            record.stack_info = self._shown(record.stack_info)
        return True


def scrub_logs(scrub: Scrubber, mask: SecretMask) -> None:
    """Scrub and mask every log line the root logger's handlers write from now on."""
    for handler in logging.getLogger().handlers:
        handler.addFilter(ScrubLogs(scrub, mask))
