"""FakeNOS devices on 127.0.0.1 for tests: its SSH servers with the command outputs it recorded
from real devices (VRP, Junos, …), each device's unknown-command reply set to the real one.
FakeNOS missing: skipped on a developer machine, a failure under CI=true (the test extra
installs it)."""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

USERNAME, PASSWORD = "labbot", "fakenos-pass"
LISTEN_SECONDS = 10.0


@dataclass(frozen=True)
class FakeDevice:
    """One FakeNOS device: its FakeNOS platform, the netmiko platform labbot drives it with, and
    the reply it gives a command it does not know (the real device's words)."""

    fakenos_platform: str
    platform: str
    unknown_reply: str


def fakenos_module() -> Any:
    """The fakenos package; missing: a failure under CI=true, else the test is skipped."""
    try:
        import fakenos
    except ImportError as exc:
        message = f"fakenos is not installed (the test extra: pip install -e '.[test]'): {exc}"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    return fakenos


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def fakenos_lab(devices: Mapping[str, FakeDevice]) -> Iterator[dict[str, int]]:
    """Start the devices (name -> FakeDevice) on free ports; yields name -> SSH port."""
    ports = {name: _free_port() for name in devices}
    hosts = {
        name: {
            "port": ports[name],
            "platform": device.fakenos_platform,
            "username": USERNAME,
            "password": PASSWORD,
            "nos": {
                "plugin": device.fakenos_platform,
                "configuration": {
                    "commands": {"_default_": {"output": device.unknown_reply, "help": "?"}}
                },
            },
        }
        for name, device in devices.items()
    }
    network = fakenos_module().FakeNOS(inventory={"hosts": hosts})
    network.start()
    try:
        for host in network.hosts.values():
            _wait_listening(host.server._socket)
        yield ports
    finally:
        network.stop()


def _wait_listening(server: socket.socket) -> None:
    """FakeNOS binds at start but listens in its own thread: a login before that is refused.
    (Asked of the server's socket: a probing connection would make FakeNOS's thread fail.)"""
    deadline = time.monotonic() + LISTEN_SECONDS
    while not server.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN):
        assert time.monotonic() < deadline, "a FakeNOS device never listened"
        time.sleep(0.01)


def write_inventory(
    path: Path, devices: Mapping[str, FakeDevice], ports: Mapping[str, int]
) -> Path:
    """A Nornir hosts.yaml of the devices, with their login."""
    hosts = {
        name: {
            "hostname": "127.0.0.1",
            "port": ports[name],
            "platform": device.platform,
            "username": USERNAME,
            "password": PASSWORD,
        }
        for name, device in devices.items()
    }
    path.write_text(yaml.safe_dump(hosts, sort_keys=False))
    return path
