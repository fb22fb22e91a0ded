"""netmiko reads that wait for the device's answer instead of sleeping a fixed step.

netmiko polls: a read that finds nothing sleeps 10 ms and looks again, so every command costs at
least one 10 ms step even when the device answers in 0.1 ms, and every waiting session wakes
100 times a second to take the GIL (with 32 sessions, ~3,200 wake-ups a second of a 2-core
machine). `WaitingReads` makes a read that would find nothing first wait, up to that same step,
for the session's socket to become readable: it returns the moment the answer arrives and
sleeps in the kernel meanwhile. After its first Enter netmiko sleeps a fixed 0.1 s "so there is
data"; here it waits for that data, at most as long. A read until a pattern compiles one regex
instead of netmiko's two.
"""

from __future__ import annotations

import select
from collections.abc import Callable
from typing import Any

from netmiko._telnetlib.telnetlib import Telnet
from paramiko import Channel

from workflow.devices.telnet import QuickTelnet

READ_WAIT = 0.01  # netmiko's own poll step: an empty read waits at most this long for data
PREPARE_WAIT = 0.1  # netmiko's fixed sleep after the session's first Enter: now at most this


def wait_readable(remote_conn: Any, seconds: float) -> None:
    """Return when the session has something to read (or is closed), or after `seconds`."""
    fd = _idle_fd(remote_conn)
    if fd is not None and isinstance(remote_conn, QuickTelnet):
        remote_conn.readable(seconds)
    elif fd is not None:
        poller = select.poll()  # not select.select: a push holds more than 1,024 descriptors
        poller.register(fd, select.POLLIN)
        poller.poll(seconds * 1000)


def _idle_fd(remote_conn: Any) -> int | None:
    """The descriptor to wait on, or None when data is already buffered (or nothing to wait
    on: a closed session, or a transport other than telnet and SSH)."""
    if isinstance(remote_conn, Telnet):
        if remote_conn.cookedq or remote_conn.irawq < len(remote_conn.rawq):
            return None
        return None if remote_conn.sock is None else remote_conn.sock.fileno()
    if isinstance(remote_conn, Channel):
        return None if remote_conn.recv_ready() or remote_conn.closed else remote_conn.fileno()
    return None


class WaitingReads:
    """A netmiko connection class mixin: empty reads wait for the socket (`wait_readable`)."""

    _read_buffer: str
    remote_conn: Any
    RETURN: str
    write_channel: Callable[[str], None]

    def read_channel(self) -> str:
        if not self._read_buffer:
            wait_readable(self.remote_conn, READ_WAIT)
        data: str = super().read_channel()  # type: ignore[misc]
        return data

    def read_until_pattern(
        self,
        pattern: str = "",
        read_timeout: float = 10.0,
        re_flags: int = 0,
        max_loops: int | None = None,
    ) -> str:
        """netmiko's, given a pattern without groups as one group: netmiko searches with the
        pattern, then splits on it wrapped in a group, compiling both (a device's prompt makes
        its patterns its own, so every session compiles them anew)."""
        if _groups_none(pattern):
            pattern = f"({pattern})"
        read: str = super().read_until_pattern(  # type: ignore[misc]
            pattern, read_timeout, re_flags, max_loops
        )
        return read

    def _try_session_preparation(self, force_data: bool = True) -> None:
        if force_data:
            self.write_channel(self.RETURN)
            wait_readable(self.remote_conn, PREPARE_WAIT)
        super()._try_session_preparation(force_data=False)  # type: ignore[misc]


def _groups_none(pattern: str) -> bool:
    """Whether `pattern` surely has no capturing group: every `(` opens a `(?:` and none is
    escaped (a pattern in doubt is left as it is)."""
    return "\\(" not in pattern and pattern.count("(") == pattern.count("(?:")
