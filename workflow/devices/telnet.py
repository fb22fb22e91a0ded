"""netmiko's telnet client, reading in large steps.

telnetlib (which netmiko vendors) receives 50 bytes per system call, building a selector for
each, and then looks at every byte in Python to find telnet commands: ~10 ms of CPU, with the
GIL held, for a 30 KB `show ip route json`. Twenty consoles polled during post-checks spend
more CPU in that loop than the routers do. `QuickTelnet` receives up to 64 KB at once and
passes text without telnet commands (no IAC byte) on in one step, dropping NUL and XON bytes as
telnetlib does; an IAC sequence still goes through telnetlib's own code, a few bytes at a time.
telnetlib also builds a selector each time it asks whether data waits (several times a read);
`QuickTelnet` asks one poll object, kept for the session.
"""

from __future__ import annotations

import select
from typing import Any

from netmiko._telnetlib.telnetlib import IAC, Telnet, theNULL

RECEIVE_BYTES = 65536
XON = b"\021"
IAC_STEP = 16  # bytes handed to telnetlib's own loop at a time (its concatenation is quadratic)


class QuickTelnet(Telnet):
    """telnetlib's Telnet with `fill_rawq` and `process_rawq` in large steps, and one poll
    object for the session's socket."""

    _poller: Any = None  # select.poll, registered on first use, dropped when the session closes

    def readable(self, seconds: float) -> bool:
        """Whether the socket has data (or its end) now or within `seconds`."""
        if self._poller is None:
            assert self.sock is not None, "readable on a closed Telnet"
            self._poller = select.poll()
            self._poller.register(self.sock, select.POLLIN)
        return bool(self._poller.poll(seconds * 1000))

    def sock_avail(self) -> bool:
        return self.readable(0)

    def close(self) -> None:
        self._poller = None  # its descriptor number may go to the next socket opened
        super().close()  # type: ignore[no-untyped-call]

    def fill_rawq(self) -> None:
        if self.irawq >= len(self.rawq):
            self.rawq, self.irawq = b"", 0
        assert self.sock is not None, "fill_rawq on a closed Telnet"
        received = self.sock.recv(RECEIVE_BYTES)
        self.eof = not received
        self.rawq += received

    def process_rawq(self) -> None:
        rest, self.rawq, self.irawq = self.rawq[self.irawq :], b"", 0
        while rest:
            if not (self.iacseq or self.sb):
                plain = rest.partition(IAC)[0]
                self.cookedq += plain.replace(theNULL, b"").replace(XON, b"")
                rest = rest[len(plain) :]
            if rest:  # an IAC sequence (or subnegotiation) goes on
                self.rawq, rest = rest[:IAC_STEP], rest[IAC_STEP:]
                super().process_rawq()  # type: ignore[no-untyped-call]  # netmiko's copy


def quicken(connection: Any) -> None:
    """Make a netmiko session's telnet client a QuickTelnet (same object, same state)."""
    if type(connection.remote_conn) is Telnet:
        connection.remote_conn.__class__ = QuickTelnet
