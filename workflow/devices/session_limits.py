"""How many device sessions one run (a push, a read, a check) may hold at once.

The number is a setting (LABBOT_DEVICE_SESSIONS); this module holds its default and the ceiling
no setting passes, as every session is a worker thread and an open console or SSH login.
"""

from __future__ import annotations

__all__ = ["DEFAULT_SESSIONS", "MOST_SESSIONS"]

DEFAULT_SESSIONS = 32
MOST_SESSIONS = 256


def checked_sessions(sessions: int) -> int:
    """`sessions` if within 1..MOST_SESSIONS; outside, refused (never widened or narrowed)."""
    if not 1 <= sessions <= MOST_SESSIONS:
        raise ValueError(f"device sessions must be 1 to {MOST_SESSIONS}, not {sessions}")
    return sessions


def worker_count(devices: int, sessions: int) -> int:
    """Threads for a run over `devices` devices: one each, at least 1, at most `sessions`."""
    return max(1, min(devices, checked_sessions(sessions)))
