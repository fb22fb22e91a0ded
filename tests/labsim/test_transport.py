"""Input handling shared by the telnet console and SSH: line ends and telnet commands."""

from __future__ import annotations

import pytest

from labsim.transport import LineReader

IAC, WILL, DO, SB, SE, NOP = 255, 251, 253, 250, 240, 241


@pytest.mark.parametrize(
    ("chunks", "lines"),
    [
        ([b"show run\r\n"], ["show run"]),
        ([b"show run\r", b"\nconf t\r\n"], ["show run", "conf t"]),  # CR LF split
        ([b"a\r\x00b\n"], ["a", "b"]),  # CR NUL (telnet) and bare LF (SSH)
        ([b"\r\n\r\n"], ["", ""]),  # netmiko's "press enter" probes
        ([bytes([IAC, WILL, 1, IAC, DO, 3]) + b"en\r\n"], ["en"]),  # negotiation ignored
        ([bytes([IAC, NOP, IAC, NOP]), b"x\r\n"], ["x"]),  # netmiko is_alive()
        ([bytes([IAC, SB, 24, 0]) + b"vt100", bytes([IAC, SE]) + b"y\n"], ["y"]),
        ([bytes([IAC]), bytes([WILL]), bytes([1]) + b"z\n"], ["z"]),  # split command
        ([b"caf\xc3", b"\xa9\n"], ["café"]),  # UTF-8 split across reads
    ],
)
def test_line_reader(chunks: list[bytes], lines: list[str]) -> None:
    reader = LineReader(telnet=True)
    assert [line for chunk in chunks for line in reader.feed(chunk)] == lines


def test_ssh_reader_keeps_0xff_bytes_as_data() -> None:
    assert LineReader(telnet=False).feed("ÿ\n".encode()) == ["ÿ"]
