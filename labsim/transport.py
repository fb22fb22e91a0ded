"""Network front ends of a simulated device: telnet console, SSH, and the fault listeners.

- telnet: raw TCP like a GNS3 node console, no login, the session starts at `R1#` (or `R1>`
  with the lab's `console_exec="user"`, like a freshly booted IOSv). Telnet
  commands from the client (option negotiation, `IAC NOP` keep-alives) are stripped, never
  answered: netmiko's telnetlib client needs no negotiation to work.
- SSH: asyncssh, username/password, a shell starting at `R1>` (then `enable` + secret), or at
  `R1#` for a privilege-15 user.
- `hang`: accepts connections and never says a word. `refuse`: a bound, non-listening socket
  keeps the port reserved while every connect gets "connection refused".
Answers go out in one write per input line; nothing here sleeps.
"""

from __future__ import annotations

import asyncio
import codecs
import logging
import socket
from collections.abc import Callable

import asyncssh

from labsim.cli import CliSession
from labsim.device import SimDevice

log = logging.getLogger(__name__)

IAC, SB, SE = 255, 250, 240
NEGOTIATION = frozenset({251, 252, 253, 254})  # WILL, WONT, DO, DONT


class LineReader:
    """Bytes in, typed lines out: strips telnet commands, accepts CR LF, CR NUL, CR or LF."""

    def __init__(self, *, telnet: bool) -> None:
        self.telnet = telnet
        self.decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self.buffer = ""
        self.after_cr = False
        self.iac_state = 0  # 0 data, 1 after IAC, 2 option byte, 3 in SB, 4 IAC inside SB

    def feed(self, data: bytes) -> list[str]:
        text = self.decoder.decode(self._strip_telnet(data) if self.telnet else data)
        lines: list[str] = []
        for char in text:
            if self.after_cr and char in "\n\x00":
                self.after_cr = False
                continue
            self.after_cr = char == "\r"
            if char in "\r\n":
                lines.append(self.buffer)
                self.buffer = ""
            elif char != "\x00":
                self.buffer += char
        return lines

    def _strip_telnet(self, data: bytes) -> bytes:
        out = bytearray()
        for byte in data:
            state = self.iac_state
            if state == 0:
                if byte == IAC:
                    self.iac_state = 1
                else:
                    out.append(byte)
            elif state == 1:
                self.iac_state = 0
                if byte == IAC:
                    out.append(IAC)
                elif byte in NEGOTIATION:
                    self.iac_state = 2
                elif byte == SB:
                    self.iac_state = 3
            elif state == 2:
                self.iac_state = 0
            elif state == 3:
                self.iac_state = 4 if byte == IAC else 3
            else:
                self.iac_state = 0 if byte == SE else 3
        return bytes(out)


def wire(text: str) -> bytes:
    return text.replace("\n", "\r\n").encode("utf-8")


def answer(session: CliSession, line: str) -> bytes:
    """The device's reply to `line`; a simulator bug becomes a visible error, not a hang."""
    try:
        return wire(session.feed_line(line))
    except Exception as err:
        log.exception("labsim: %s failed on %r", session.device.name, line)
        return wire(f"{line}\n% labsim internal error: {err!r}\n{session.prompt()}")


class TelnetConsole(asyncio.Protocol):
    """One console connection; sessions on the device are tracked so the lab can close them."""

    def __init__(
        self,
        device: SimDevice,
        secret: str,
        live: set[asyncio.BaseTransport],
        *,
        privileged: bool = True,
    ) -> None:
        self.device, self.secret, self.live = device, secret, live
        self.privileged = privileged
        self.reader = LineReader(telnet=True)
        self.transport: asyncio.Transport | None = None
        self.session: CliSession | None = None
        self.typed_early = b""  # what came before the first prompt (the slow_start fault)

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        self.live.add(transport)
        fault = self.device.fault
        if fault is not None and fault.kind == "slow_start":
            asyncio.get_running_loop().call_later(fault.after / 1000, self._start)
        else:
            self._start()

    def _start(self) -> None:
        assert self.transport is not None
        if self.transport.is_closing():
            return
        self.session = CliSession(self.device, privileged=self.privileged, secret=self.secret)
        self.transport.write(wire(self.session.greeting()))
        if self.typed_early:  # answered a moment later, as its own packet
            asyncio.get_running_loop().call_later(0.05, self.data_received, self.typed_early)

    def data_received(self, data: bytes) -> None:
        assert self.transport is not None
        if self.session is None:
            self.typed_early += data
            return
        for line in self.reader.feed(data):
            self.transport.write(answer(self.session, line))
            if self.session.closed:
                self.transport.close()
                return

    def connection_lost(self, exc: Exception | None) -> None:
        if self.transport is not None:
            self.live.discard(self.transport)


class Silent(asyncio.Protocol):
    """The `hang` fault: accept, read and discard, never answer."""

    def __init__(self, live: set[asyncio.BaseTransport]) -> None:
        self.live = live
        self.transport: asyncio.BaseTransport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport
        self.live.add(transport)

    def connection_lost(self, exc: Exception | None) -> None:
        if self.transport is not None:
            self.live.discard(self.transport)


class SSHShell(asyncssh.SSHServerSession[bytes]):
    """An interactive shell channel; the CLI session starts in user exec mode (or privileged)."""

    def __init__(self, device: SimDevice, secret: str, *, privileged: bool = False) -> None:
        self.session = CliSession(device, privileged=privileged, secret=secret)
        self.reader = LineReader(telnet=False)
        self.chan: asyncssh.SSHServerChannel[bytes] | None = None

    def connection_made(self, chan: asyncssh.SSHServerChannel[bytes]) -> None:
        self.chan = chan

    def pty_requested(self, term_type: str, term_size: object, term_modes: object) -> bool:
        return True

    def shell_requested(self) -> bool:
        return True

    def session_started(self) -> None:
        assert self.chan is not None
        self.chan.write(wire(self.session.greeting()))

    def data_received(self, data: bytes, datatype: object) -> None:
        assert self.chan is not None
        for line in self.reader.feed(data):
            self.chan.write(answer(self.session, line))
            if self.session.closed:
                self.chan.exit(0)
                return


class SSHLogin(asyncssh.SSHServer):
    """Password authentication against the lab's credentials, one shell per channel."""

    def __init__(
        self,
        device: SimDevice,
        credentials: tuple[str, str, str],
        live: set[object],
        *,
        privileged: bool = False,
    ) -> None:
        self.device, self.credentials, self.live = device, credentials, live
        self.privileged = privileged
        self.conn: asyncssh.SSHServerConnection | None = None

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self.conn = conn
        self.live.add(conn)

    def connection_lost(self, exc: Exception | None) -> None:
        self.live.discard(self.conn)

    def begin_auth(self, username: str) -> bool:
        return True

    def password_auth_supported(self) -> bool:
        return True

    def validate_password(self, username: str, password: str) -> bool:
        return (username, password) == self.credentials[:2]

    def session_requested(self) -> SSHShell:
        return SSHShell(self.device, self.credentials[2], privileged=self.privileged)


def reserve_closed_port(host: str, port: int) -> socket.socket:
    """The `refuse` fault: a bound socket that never listens (connects are refused)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind((host, port))
    return sock


async def listen(factory: Callable[[], asyncio.Protocol], host: str, port: int) -> asyncio.Server:
    loop = asyncio.get_running_loop()
    return await loop.create_server(factory, host, port, reuse_address=True, backlog=256)
