"""QuickTelnet reads what telnetlib reads: the same text and the same answers to the server's
telnet commands, over a real socket, with commands split across packets and large outputs."""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Callable

import pytest
from netmiko._telnetlib.telnetlib import Telnet

from workflow.devices.telnet import QuickTelnet

BIG = b"".join(b'{"prefix":"10.0.%d.0/24","protocol":"ospf"}\r\n' % (i % 250) for i in range(3000))
PACKETS = [
    b"\xff\xfd\x01",  # IAC DO ECHO: telnetlib answers WONT
    b"\xff\xfb",  # IAC WILL, split from its option ...
    b"\x03R1> show ip route json\r\n",  # ... SUPPRESS-GO-AHEAD, then text
    b"null\x00byte, xon\x11 gone, an escaped \xff\xff byte\r\n",
    b"\xff\xfa\x18\x01\xff\xf0",  # a subnegotiation (TERMINAL-TYPE SEND)
    BIG,
    b"\xff",  # an IAC at the very end of a packet ...
    b"\xf1R1#",  # ... and its NOP in the next one
]


def serve(packets: list[bytes], *, reads_after: float = 0.0) -> tuple[int, Callable[[], bytes]]:
    """A one-connection server sending `packets` apart, then reading (after `reads_after`
    seconds, with a small receive buffer) until the client closes; returns its port and a call
    that waits for the server to end and gives what it received."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    received: list[bytes] = []

    def run() -> None:
        connection, _ = listener.accept()
        with connection, listener:
            for packet in packets:
                connection.sendall(packet)
                time.sleep(0.01)
            time.sleep(reads_after)
            connection.settimeout(30)
            while chunk := connection.recv(4096):
                received.append(chunk)

    server = threading.Thread(target=run, daemon=True)
    server.start()

    def ended() -> bytes:
        server.join(30)
        assert not server.is_alive(), "the test server did not see the client close"
        return b"".join(received)

    return listener.getsockname()[1], ended


def read(client_class: type[Telnet], eager: bool) -> tuple[bytes, bytes]:
    port, ended = serve(PACKETS)
    client = client_class("127.0.0.1", port, timeout=5)
    text = b""
    if eager:  # as netmiko reads: whatever is there, again and again
        deadline = time.monotonic() + 5
        while not text.endswith(b"R1#") and time.monotonic() < deadline:
            text += client.read_very_eager()
            time.sleep(0.005)
    else:
        text = client.read_until(b"R1#", timeout=5)
    client.close()
    return text, ended()


@pytest.mark.parametrize("eager", [True, False], ids=["read_very_eager", "read_until"])
def test_quick_telnet_reads_and_answers_exactly_as_telnetlib(eager: bool) -> None:
    expected_text, expected_answers = read(Telnet, eager)
    text, answers = read(QuickTelnet, eager)
    assert text == expected_text
    assert answers == expected_answers
    assert BIG in text and b"\x00" not in text and b"\x11" not in text
    assert b"an escaped \xff byte" in text
    assert answers  # telnetlib refused the options it was offered


def written(client_class: type[Telnet], lines: list[bytes]) -> bytes:
    """What a server receives from the client's writes; it reads only after a moment, and both
    ends' buffers are small, so a large line is more than the socket takes at once."""
    port, ended = serve([], reads_after=0.3)
    client = client_class("127.0.0.1", port, timeout=5)
    assert client.sock is not None
    client.sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    for line in lines:
        client.write(line)
    client.close()
    return ended()


def test_quick_telnet_sends_exactly_what_telnetlib_sends(monkeypatch: pytest.MonkeyPatch) -> None:
    lines = [b"show running-config\r\n", b"banner motd \xffhi\xff\r\n", b"x" * 300_000 + b"\r\n"]
    short_writes: list[int] = []

    def write(fd: int, data: bytes) -> int:
        sent = os_write(fd, data)
        if sent < len(data):
            short_writes.append(sent)
        return sent

    os_write = os.write
    monkeypatch.setattr(os, "write", write)
    assert (
        written(QuickTelnet, lines)
        == written(Telnet, lines)
        == b"".join(lines).replace(b"\xff", b"\xff\xff")
    )
    assert short_writes  # the large line went partly at once, the rest as the server read
