"""Lines typed at the terminal, read on the event loop (no thread), so Ctrl-C ends the current
input at once: a thread blocked in `readline` would hold the process until Enter."""

from __future__ import annotations

import asyncio
import os


class Interrupted(Exception):
    """Ctrl-C while a line was being read: what was typed so far is dropped."""


class Keyboard:
    """`readline()` over a file descriptor (a terminal or a pipe); `interrupt()` ends a read."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._buffer = b""
        self._eof = False
        self._waiting: asyncio.Future[None] | None = None

    async def readline(self) -> str:
        """The next line with its newline; "" at the end of input. Raises Interrupted."""
        while b"\n" not in self._buffer and not self._eof:
            loop = asyncio.get_running_loop()
            self._waiting = loop.create_future()
            loop.add_reader(self._fd, self._readable)
            try:
                await self._waiting
            finally:
                loop.remove_reader(self._fd)
                self._waiting = None
        line, newline, self._buffer = self._buffer.partition(b"\n")
        return (line + newline).decode(errors="replace")

    def interrupt(self) -> None:
        """Drop what was typed so far; a read under way raises Interrupted."""
        self._buffer = b""
        if self._waiting is not None and not self._waiting.done():
            self._waiting.set_exception(Interrupted())

    @property
    def reading(self) -> bool:
        return self._waiting is not None

    def _readable(self) -> None:
        data = os.read(self._fd, 4096)
        self._eof = not data
        self._buffer += data
        if self._waiting is not None and not self._waiting.done():
            self._waiting.set_result(None)
