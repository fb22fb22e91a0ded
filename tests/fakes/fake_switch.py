"""A fake-switches Cisco switch over SSH on 127.0.0.1, in a process of its own.

fake-switches (an independent simulator, Internap's) runs on Twisted's reactor, which runs once
per process: the test starts this module with `python -m tests.fakes.fake_switch NAME USER
PASSWORD SECRET`, which prints the port it listens on and serves until it is killed. Its Cisco
models answer no `end`: netmiko's push then fails to leave configuration mode after the lines
took. The host key is made at start (an Ed25519 key), not the RSA key fake-switches ships.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MISSING = (
    "fake-switches is not installed for the tests: scripts/setup-venv.sh test installs it "
    "(pip install --no-deps fake-switches==1.5.0 beside its dependencies in the test extra)"
)


@dataclass(frozen=True)
class FakeSwitch:
    name: str
    port: int
    username: str
    password: str
    secret: str  # `enable`'s


def installed() -> None:
    """fake-switches is importable; missing: a failure under CI=true, else a skip."""
    try:
        import fake_switches  # noqa: F401
        import twisted.conch  # noqa: F401
    except ImportError as err:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"{MISSING} ({err})")
        pytest.skip(f"{MISSING} ({err})")


@contextmanager
def fake_switch(name: str, username: str, password: str, secret: str) -> Iterator[FakeSwitch]:
    """A cisco_generic switch named `name`, its login `username`/`password` and `enable`
    `secret`, until the end."""
    installed()
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.fakes.fake_switch", name, username, password, secret],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.strip().isdigit(), f"fake-switches did not start: {line!r}"
        yield FakeSwitch(name, int(line), username, password, secret)
    finally:
        process.kill()
        process.wait()


def _serve(name: str, username: str, password: str, secret: str) -> None:
    from cryptography.hazmat.primitives.asymmetric import ed25519
    from fake_switches import switch_factory
    from fake_switches.transports import ssh_service
    from twisted.conch.ssh import keys
    from twisted.internet import reactor

    key = keys.Key(ed25519.Ed25519PrivateKey.generate())
    public, private = key.public().toString("openssh"), key.toString("openssh")

    core = switch_factory.SwitchFactory().get("cisco_generic", name, secret)
    service = ssh_service.SwitchSshService(
        ip="127.0.0.1", port=0, switch_core=core, users={username: password.encode()}
    )
    listening = service.hook_to_reactor(reactor)
    listening.factory.publicKeys = {b"ssh-ed25519": keys.Key.fromString(public)}
    listening.factory.privateKeys = {b"ssh-ed25519": keys.Key.fromString(private)}
    print(listening.getHost().port, flush=True)
    reactor.run()  # type: ignore[attr-defined]


if __name__ == "__main__":
    _serve(*sys.argv[1:5])
