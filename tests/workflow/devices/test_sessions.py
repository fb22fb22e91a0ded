"""Sessions a push holds for its post-checks: handed to the next run of the same devices and
login while fresh, closed when nobody takes them in time."""

from __future__ import annotations

import time

from nornir.core.inventory import Host
from nornir_netmiko.connections import CONNECTION_NAME

from workflow.devices.runner import Credentials, Timeouts, build_nornir
from workflow.devices.sessions import HeldSessions
from workflow.model import Device

LOGIN = Credentials("labadmin", "pw-123456", None)


class RecordingSession:
    """Stands in for an open netmiko session: records whether it was closed."""

    def __init__(self) -> None:
        self.closed = False
        self.connection = object()

    def close(self) -> None:
        self.closed = True


def devices(*names: str, port: int = 2001) -> list[Device]:
    return [Device(name, "cisco_ios_telnet", "127.0.0.1", port) for name in names]


def pushed(names: tuple[str, ...]) -> tuple[dict[str, RecordingSession], list[Host]]:
    nornir = build_nornir(devices(*names), LOGIN, Timeouts(1, 1))
    sessions = {}
    for name, host in nornir.inventory.hosts.items():
        sessions[name] = host.connections[CONNECTION_NAME] = RecordingSession()  # type: ignore[assignment]
    return sessions, list(nornir.inventory.hosts.values())


def test_a_held_session_goes_to_the_post_checks_of_the_same_device_and_login() -> None:
    held = HeldSessions(seconds=30)
    sessions, hosts = pushed(("R1", "R2"))
    held.hold(hosts)
    assert not any(host.connections for host in hosts)  # the push's run no longer closes them
    checks = build_nornir(devices("R1", "R3"), LOGIN, Timeouts(1, 1))
    assert held.lend(checks) == 1
    assert checks.inventory.hosts["R1"].connections[CONNECTION_NAME] is sessions["R1"]
    assert not checks.inventory.hosts["R3"].connections
    other_login = build_nornir(devices("R2"), Credentials("bob", "x", None), Timeouts(1, 1))
    assert held.lend(other_login) == 0  # another login never gets R2's session
    assert held.close_expired(everything=True) == 1 and sessions["R2"].closed
    assert not sessions["R1"].closed  # lent: its new run closes it


def test_a_session_nobody_takes_in_time_is_closed_and_never_lent() -> None:
    held = HeldSessions(seconds=0.05)
    sessions, hosts = pushed(("R1",))
    held.hold(hosts)
    time.sleep(0.1)
    checks = build_nornir(devices("R1"), LOGIN, Timeouts(1, 1))
    assert held.lend(checks) == 0
    assert held.close_expired() == 1 and sessions["R1"].closed
    assert held.close_expired() == 0
