"""netmiko's telnet client, reading in large steps.

telnetlib (which netmiko vendors) receives 50 bytes per system call, building a selector for
each, and then looks at every byte in Python to find telnet commands: ~10 ms of CPU, with the
GIL held, for a 30 KB `show ip route json`. Twenty consoles polled during post-checks spend
more CPU in that loop than the routers do. `QuickTelnet` receives up to 64 KB at once and
passes text without telnet commands (no IAC byte) on in one step, dropping NUL and XON bytes as
telnetlib does; an IAC sequence still goes through telnetlib's own code, a few bytes at a time.
telnetlib also builds a selector each time it asks whether data waits (several times a read);
`QuickTelnet` asks one poll object, kept for the session, and only when it does not know the
answer: a wait that found data needs no second ask before the receive, and a receive that took
less than it could emptied the socket, so the drain's last ask needs none either (one poll and
one receive a read instead of three polls and one: each system call lets another of 32 session
threads take the GIL). A socket with a timeout (telnetlib's) also polls before every send and
receive; `QuickTelnet` sends and receives at once, and waits as the socket would only when it
cannot (a full send buffer, nothing there after all).
"""

from __future__ import annotations

import os
import select
import socket
import sys
from typing import Any

from netmiko._telnetlib.telnetlib import IAC, Telnet, theNULL

RECEIVE_BYTES = 65536
XON = b"\021"
IAC_STEP = 16  # bytes handed to telnetlib's own loop at a time (its concatenation is quadratic)


class QuickTelnet(Telnet):
    """telnetlib's Telnet with `fill_rawq` and `process_rawq` in large steps, and one poll
    object for the session's socket, asked only when the answer is not known."""

    _poller: Any = None  # select.poll, registered on first use, dropped when the session closes
    # What the last wait or receive told of the socket and nothing has acted on yet: data waits
    # (True), the socket was just emptied (False), or unknown (None: ask the poll).
    _ready: bool | None = None

    def readable(self, seconds: float) -> bool:
        """Whether the socket has data (or its end) now or within `seconds`."""
        if not self._ready:
            self._ready = self._poll(seconds)
        return self._ready

    def sock_avail(self) -> bool:
        known, self._ready = self._ready, None  # told once: later asks look again
        return self._poll(0) if known is None else known

    def _poll(self, seconds: float) -> bool:
        if self._poller is None:
            assert self.sock is not None, "readable on a closed Telnet"
            self._poller = select.poll()
            self._poller.register(self.sock, select.POLLIN)
        return bool(self._poller.poll(seconds * 1000))

    def close(self) -> None:
        self._poller, self._ready = None, None  # its descriptor may go to the next socket
        super().close()  # type: ignore[no-untyped-call]

    def fill_rawq(self) -> None:
        if self.irawq >= len(self.rawq):
            self.rawq, self.irawq = b"", 0
        assert self.sock is not None, "fill_rawq on a closed Telnet"
        received = _received(self.sock)
        self.eof = not received
        self._ready = False if len(received) < RECEIVE_BYTES else None  # short: emptied
        self.rawq += received

    def write(self, buffer: bytes) -> None:
        """telnetlib's write (IAC doubled), sending what the socket takes at once."""
        if IAC in buffer:
            buffer = buffer.replace(IAC, IAC + IAC)
        sys.audit("telnetlib.Telnet.write", self, buffer)
        self.msg("send %r", buffer)  # type: ignore[no-untyped-call]
        assert self.sock is not None, "write on a closed Telnet"
        try:
            sent = os.write(self.sock.fileno(), buffer)
        except BlockingIOError:
            sent = 0
        if sent < len(buffer):
            self.sock.sendall(buffer[sent:])  # the rest within the socket's timeout

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


def _received(sock: socket.socket) -> bytes:
    """What the socket holds, read at once (it is called when data waits); if nothing is there
    after all, what `recv` gets within the socket's timeout."""
    try:
        return os.read(sock.fileno(), RECEIVE_BYTES)
    except BlockingIOError:
        return sock.recv(RECEIVE_BYTES)


def quicken(connection: Any) -> None:
    """Make a netmiko session's telnet client a QuickTelnet (same object, same state)."""
    if type(connection.remote_conn) is Telnet:
        connection.remote_conn.__class__ = QuickTelnet
