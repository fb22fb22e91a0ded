"""Device sessions: a prompt-driven telnet login, and sessions held from a push to its checks.

netmiko's telnet login sleeps a fixed second before it reads anything (and more between tries),
whatever `fast_cli` says; a console that shows its prompt at once (a GNS3 or FRR console) is
ready long before. `connect` opens the Nornir host's netmiko session with a subclass that reads
the channel until a prompt shows and hands a username or password prompt (or talk that never
ends in a prompt) to netmiko's own login; a console that stays silent fails within the connect
timeout. SSH sessions open as netmiko opens them.

`HeldSessions` keeps the sessions of a push open for the post-checks that follow it, so those
read on the very session that pushed instead of logging in again; a session nobody takes within
`seconds` is closed.
"""

from __future__ import annotations

import functools
import logging
import re
import socket
import threading
import time
from collections.abc import Iterable
from typing import Any

from netmiko import BaseConnection
from netmiko.cisco_base_connection import CiscoBaseConnection
from netmiko.ssh_dispatcher import ssh_dispatcher
from nornir.core import Nornir
from nornir.core.configuration import Config
from nornir.core.inventory import Host
from nornir.core.plugins.connections import ConnectionPlugin
from nornir.core.task import Task
from nornir_netmiko.connections import CONNECTION_NAME

from workflow.devices.session_setup import NamedSetup
from workflow.devices.telnet import quicken
from workflow.devices.waiting import WaitingReads

log = logging.getLogger(__name__)

GREETING_SECONDS = 1.0  # how long a console may talk without a prompt before netmiko's login
RETURN_AFTER = 0.2  # seconds of silence after which one Enter wakes a console (IOS shows nothing)
HOLD_SECONDS = 10.0  # a held session nobody took by then is closed


class PromptLogin:
    """A netmiko telnet class mixin: the login returns as soon as the console shows a prompt,
    and netmiko's base prompt is taken from it (its `find_prompt` sleeps ~0.07 s)."""

    _prompt_unasked = ""  # the prompt the console showed at login, for the first `find_prompt`

    def telnet_login(
        self,
        pri_prompt_terminator: str = r"\#\s*$",
        alt_prompt_terminator: str = r">\s*$",
        username_pattern: str = r"(?:user:|username|login|user name)",
        pwd_pattern: str = r"assword",
        delay_factor: float = 1.0,
        max_loops: int = 20,
    ) -> str:
        prompt = rf"{pri_prompt_terminator}|{alt_prompt_terminator}"
        greeting = _greeting(self, prompt, rf"{username_pattern}|{pwd_pattern}")
        if greeting is not None:
            self._prompt_unasked = last_line(greeting)
            return greeting
        login: str = super().telnet_login(  # type: ignore[misc]
            pri_prompt_terminator,
            alt_prompt_terminator,
            username_pattern,
            pwd_pattern,
            delay_factor,
            max_loops,
        )
        return login

    def find_prompt(self, delay_factor: float = 1.0, pattern: str | None = None) -> str:
        """netmiko's, except the first time after a prompt-driven login (netmiko's base prompt):
        the console has just shown it, and only terminal settings were sent since. Later calls
        (the first read's) look as netmiko does, which also clears what is left in the channel
        (a second prompt, when the console got an Enter before it showed the first)."""
        shown, self._prompt_unasked = self._prompt_unasked, ""
        if shown and (pattern is None or re.search(pattern, shown)):
            return shown
        found: str = super().find_prompt(delay_factor, pattern)  # type: ignore[misc]
        return found


def last_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[-1].strip() if lines else ""


def _greeting(connection: Any, prompt: str, login: str) -> str | None:
    """What the console said up to its prompt (the last thing it said: a banner line ending in
    `#` or `>` is not one); None, with what it said put back for netmiko's own login, when it
    asks for a login or shows no prompt within GREETING_SECONDS.

    A console that says nothing at all (a hung or booting node) fails within the connect
    timeout, where netmiko's login would poll for about 12 s whatever its timeouts say.
    """
    started = time.monotonic()
    output, woken = "", False
    while not re.search(prompt, output):
        elapsed = time.monotonic() - started
        if re.search(login, output, flags=re.I) or (output and elapsed >= GREETING_SECONDS):
            connection._read_buffer = output + connection._read_buffer
            return None
        if not output and elapsed >= connection.conn_timeout:
            connection.remote_conn.close()
            raise TimeoutError(f"the console said nothing within {connection.conn_timeout:g} s")
        if not output and not woken and elapsed >= RETURN_AFTER:  # IOS shows nothing until Enter
            connection.write_channel(connection.TELNET_RETURN)
            woken = True
        output += str(connection.read_channel())  # waits for data (WaitingReads), not a fixed step
    return output


@functools.cache
def session_class(device_type: str) -> type[BaseConnection]:
    """The netmiko class for `device_type`, its reads waiting for the device (WaitingReads),
    with the prompt-driven login where netmiko's is the Cisco-style telnet login this knows,
    its set-up's failure naming the step (NamedSetup)."""
    base = ssh_dispatcher(device_type)
    if base.telnet_login is not CiscoBaseConnection.telnet_login:
        return type(f"Waiting{base.__name__}", (NamedSetup, WaitingReads, base), {})
    return type(f"Prompt{base.__name__}", (NamedSetup, PromptLogin, WaitingReads, base), {})


class PromptNetmiko:
    """A Nornir connection plugin like nornir-netmiko's, opening `session_class` sessions."""

    connection: BaseConnection

    def open(
        self,
        hostname: str | None,
        username: str | None,
        password: str | None,
        port: int | None,
        platform: str | None,
        extras: dict[str, Any] | None = None,
        configuration: Config | None = None,
    ) -> None:
        device_type = platform or ""
        parameters: dict[str, Any] = (
            {"ssh_config_file": configuration.ssh.config_file} if (configuration) else {}
        )
        parameters |= extras or {}
        self.connection = session_class(device_type)(
            host=hostname or "",
            username=username or "",
            password=password,
            port=port,
            device_type=device_type,
            **parameters,
        )
        quicken(self.connection)

    def close(self) -> None:
        self.connection.disconnect()


def connect(task: Task) -> Any:
    """The host's netmiko session: the one it has (held or opened earlier), else a new one."""
    host = task.host
    if CONNECTION_NAME not in host.connections:
        options = host.get_connection_parameters(CONNECTION_NAME)
        platform = options.platform or ""
        if platform.endswith("_telnet") and not issubclass(session_class(platform), PromptLogin):
            probe_console(host, float((options.extras or {}).get("conn_timeout", 15)))
        plugin = PromptNetmiko()
        plugin.open(
            hostname=options.hostname,
            username=options.username,
            password=options.password,
            port=options.port,
            platform=options.platform,
            extras=options.extras,
            configuration=task.nornir.config,
        )
        host.connections[CONNECTION_NAME] = plugin
    return host.connections[CONNECTION_NAME].connection


def probe_console(host: Host, timeout: float) -> None:
    """Fail fast when a telnet console (of a class without PromptLogin) accepts but never
    answers: a CR on a fresh connection must bring back something within `timeout`."""
    address = (host.hostname or "", host.port or 23)
    with socket.create_connection(address, timeout=timeout) as sock:
        sock.sendall(b"\r\n")
        try:
            if not sock.recv(1):
                raise EOFError("the console closed the connection")
        except TimeoutError:
            raise TimeoutError(f"the console said nothing within {timeout:g} s") from None


def close_plugin(plugin: ConnectionPlugin, name: str) -> None:
    try:
        plugin.close()
    except Exception as exc:  # a dropped session cannot be closed cleanly; nothing is left open
        log.debug("%s: closing the session failed: %s", name, exc)


class HeldSessions:
    """Open sessions handed from one Nornir run (a push) to the next (its post-checks)."""

    def __init__(self, seconds: float = HOLD_SECONDS) -> None:
        self._seconds = seconds
        self._held: dict[tuple[str, str, int | None, str], tuple[ConnectionPlugin, float]] = {}
        self._lock = threading.Lock()

    def hold(self, hosts: Iterable[Host]) -> None:
        """Take the hosts' open sessions out of their run (it no longer closes them)."""
        until = time.monotonic() + self._seconds
        taken = [(host, host.connections.pop(CONNECTION_NAME, None)) for host in hosts]
        with self._lock:
            for host, plugin in taken:
                if plugin is not None:
                    self._held[_key(host)] = (plugin, until)

    def lend(self, nornir: Nornir) -> int:
        """Give the run's hosts the sessions held for them (same device, address and login);
        returns how many. The run closes them as its own."""
        now, lent = time.monotonic(), 0
        with self._lock:
            for host in nornir.inventory.hosts.values():
                plugin, until = self._held.pop(_key(host), (None, 0.0))
                if plugin is not None and until > now:
                    host.connections[CONNECTION_NAME] = plugin
                    lent += 1
                elif plugin is not None:
                    self._held[_key(host)] = (plugin, until)  # expired: closed by close_expired
        return lent

    def close_expired(self, everything: bool = False) -> int:
        """Close the sessions held past their time (or all of them); returns how many."""
        now = time.monotonic()
        with self._lock:
            gone = {k: p for k, (p, until) in self._held.items() if everything or until <= now}
            for key in gone:
                del self._held[key]
        for key, plugin in gone.items():
            close_plugin(plugin, key[0])
        return len(gone)

    @property
    def seconds(self) -> float:
        return self._seconds


def _key(host: Host) -> tuple[str, str, int | None, str]:
    return (host.name, host.hostname or "", host.port, host.username or "")
