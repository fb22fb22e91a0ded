"""Limits at the door: how long a request may be and how many changes may be open at once,
per person and per channel. Pure; the decision service counts and asks."""

from __future__ import annotations

from dataclasses import dataclass

from bot import messages


@dataclass(frozen=True)
class DoorLimits:
    max_request_chars: int = 4000  # LABBOT_MAX_REQUEST_CHARS
    max_open_per_user: int = 5  # LABBOT_MAX_OPEN_PER_USER
    max_open_per_channel: int = 20  # LABBOT_MAX_OPEN_PER_CHANNEL
    window_seconds: float = 86400.0  # a change older than this (the gate TTL) no longer counts


def refuse_size(limits: DoorLimits, text: str) -> str | None:
    """The reason a text is too long to take in (it is neither stored nor echoed), or None."""
    if len(text) <= limits.max_request_chars:
        return None
    return messages.TOO_LONG.format(size=len(text), limit=limits.max_request_chars)


def refuse_open(limits: DoorLimits, *, by_user: int, in_channel: int) -> str | None:
    """The reason one more change may not be opened, given how many are open, or None."""
    if by_user >= limits.max_open_per_user:
        return messages.TOO_MANY_OPEN_BY_USER.format(count=by_user)
    if in_channel >= limits.max_open_per_channel:
        return messages.TOO_MANY_OPEN_IN_CHANNEL.format(count=in_channel)
    return None
