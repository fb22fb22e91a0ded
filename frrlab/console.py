"""A router's console: its integrated vtysh on a TCP port of 127.0.0.1, like a GNS3 console.

socat listens (TCP_NODELAY: without it, loopback's delayed ACKs add ~40 ms to most lines
typed) and, per connection, runs vtysh inside the router's namespaces (`nsenter` into
zebra's network, UTS and mount namespaces) on a pseudo-terminal; `igncr` makes one Enter of a
telnet client's CR LF. The port is probed free, and the console counts as open only once socat
is alive and listening on it (another program may take a probed port first: then another port).
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from frrlab.host import FrrLabError, summary

ATTEMPTS = 5
LISTEN_SECONDS = 3.0
STOP_SECONDS = 2.0
PTY_OPTIONS = "pty,stderr,setsid,sigint,sane,ctty,igncr"
SAFE_PATH = re.compile(r"[A-Za-z0-9/_.+-]+")  # socat's address syntax reserves , : ! and spaces
TCP_LISTEN = "0A"  # the state column of /proc/net/tcp


@dataclass(frozen=True)
class Console:
    router: str
    host: str
    port: int
    process: subprocess.Popen[bytes]


def open_console(
    router: str,
    host: str,
    zebra_pid: int,
    vty_dir: Path,
    log: Path,
    history: Path,
    port: int | None = None,
) -> Console:
    """Start the console of `router` (on `port`, by default a free one); FrrLabError when no
    port could be opened. Every line typed on it is appended to `history` (vtysh's own
    history: what the router was sent)."""
    if not all(SAFE_PATH.fullmatch(str(path)) for path in (vty_dir, history)):
        raise FrrLabError(f"the lab folder {vty_dir} has characters socat cannot take")
    history.touch()  # vtysh appends to it, and never creates it
    vtysh = f"nsenter -t {zebra_pid} -n -u -m vtysh --vty_socket {vty_dir} -H {history}"
    return serve_command(router, host, f"{vtysh},{PTY_OPTIONS}", log, "console", port)


def serve_command(
    router: str, host: str, command: str, log: Path, what: str, port: int | None = None
) -> Console:
    """Listen on `port` of `host` (by default a free one) and run socat's EXEC `command` per
    connection, its notices going to `log`; FrrLabError naming `what` when it could not open."""
    for _ in range(ATTEMPTS if port is None else 1):
        listen = port or _probe_free_port(host)
        with log.open("ab") as stderr:
            process = subprocess.Popen(
                [
                    "socat",
                    "-d",  # notices: one "accepting connection" line per login, for console_logins
                    "-d",
                    f"TCP-LISTEN:{listen},bind={host},reuseaddr,fork,nodelay",
                    f"EXEC:{command}",
                ],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=stderr,
                start_new_session=True,  # its connection handlers share its process group
            )
        if _listening(host, listen, process):
            return Console(router, host, listen, process)
        close_console(process)
    reason = summary(log.read_text(errors="replace")) or "no reason given"
    tried = f"{ATTEMPTS} ports" if port is None else f"port {port} of {host}"
    raise FrrLabError(f"router {router}: the {what} did not open on {tried} ({reason})")


def console_logins(log: Path) -> int:
    """How many connections the console behind `log` has taken so far."""
    return log.read_text(errors="replace").count("accepting connection from")


def close_console(process: subprocess.Popen[bytes]) -> None:
    """Stop the listener and its connection handlers (TERM, then KILL)."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, sig)
        try:
            process.wait(STOP_SECONDS)
            return
        except subprocess.TimeoutExpired:
            continue


def listening_ports(host: str) -> dict[int, str]:
    """TCP ports with a listening socket on `host` (IPv4) -> the socket's inode (/proc/net/tcp)."""
    wanted = socket.inet_aton(host)[::-1].hex().upper()
    ports = {}
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        address, port = fields[1].split(":")
        if fields[3] == TCP_LISTEN and address == wanted:
            ports[int(port, 16)] = fields[9]
    return ports


def _sockets_of(pid: int) -> set[str]:
    """Inodes of the sockets a process holds open."""
    found = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            found.add(target[len("socket:[") : -1])
    return found


def _probe_free_port(host: str) -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def _listening(host: str, port: int, process: subprocess.Popen[bytes]) -> bool:
    """Wait until socat itself listens on the port; False if it exits first (the port was
    taken: another program's listener on it does not count)."""
    deadline = time.monotonic() + LISTEN_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return False
        inode = listening_ports(host).get(port)
        if inode is not None and inode in _sockets_of(process.pid):
            return True
        time.sleep(0.01)
    return False
