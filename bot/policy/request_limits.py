"""Limits at the door: how long a request may be and how many changes may be open at once,
per person, per channel and over all. Pure; storage counts and records in one transaction."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from bot import messages
from storage.audit_records import CapReached, OpenCaps

__all__ = ["RequestLimits", "open_caps", "refuse_open", "refuse_size"]


@dataclass(frozen=True)
class RequestLimits:
    max_request_chars: int = 4000  # LABBOT_MAX_REQUEST_CHARS
    max_open_per_user: int = 5  # LABBOT_MAX_OPEN_PER_USER
    max_open_per_channel: int = 20  # LABBOT_MAX_OPEN_PER_CHANNEL
    max_open: int = 200  # LABBOT_MAX_OPEN: everyone's together
    window_seconds: float = 86400.0  # a change older than this (the gate TTL) no longer counts


def refuse_size(limits: RequestLimits, text: str) -> str | None:
    """The reason a text is too long to take in (it is neither stored nor echoed), or None."""
    if len(text) <= limits.max_request_chars:
        return None
    return messages.TOO_LONG.format(size=len(text), limit=limits.max_request_chars)


def open_caps(limits: RequestLimits, now: datetime) -> OpenCaps:
    """The caps storage reserves a new change against, counted over the window up to `now`."""
    return OpenCaps(
        since=now - timedelta(seconds=limits.window_seconds),
        per_user=limits.max_open_per_user,
        per_channel=limits.max_open_per_channel,
        overall=limits.max_open,
    )


def refuse_open(reached: CapReached, *, agent: bool = False) -> str:
    """Why one more change may not be opened: the cap storage found reached (an AI agent's
    own cap is LABBOT_MCP_MAX_OPEN_PER_AGENT, counted where a person's is)."""
    if agent and reached.scope == "user":
        return messages.AGENT_TOO_MANY_OPEN.format(count=reached.count)
    return messages.TOO_MANY_OPEN[reached.scope].format(count=reached.count)
