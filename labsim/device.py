"""One simulated device: its configuration state, faults, ports and what it was told.

Above the vendors (`labsim.vendors`): a device looks its platform up by name, and the
platform's show handlers read it back through `labsim.platform.DeviceView`.
"""

from __future__ import annotations

import ipaddress
import re
import threading
from collections.abc import Iterable, Mapping

from labsim.configtree import ConfigNode, parse, render
from labsim.platform import Platform
from labsim.platform import SimInterface as SimInterface  # said again: its readers look here
from labsim.spec import DeviceSpec, Fault, parse_fault
from labsim.vendors import platform_by_name


class SimDevice:
    """A stateful device. Thread-safe: a `LabThread` user reads it from another thread."""

    def __init__(
        self,
        name: str,
        platform: str,
        config_text: str,
        *,
        peers: Mapping[str, tuple[str, str]] | None = None,
        fault: Fault | str | Mapping[str, int] | None = None,
        reject: Iterable[str] = (),
        leases: Mapping[str, ipaddress.IPv4Interface] | None = None,
    ) -> None:
        self.name = name
        self.platform = platform
        self.cli: Platform = platform_by_name(platform)
        self.peers = dict(peers or {})
        self.leases = dict(leases or {})  # interface -> the address a DHCP server gave it
        self.fault = parse_fault(fault)
        self.reject = tuple(re.compile(pattern) for pattern in reject)
        self.ssh_port: int | None = None
        self.telnet_port: int | None = None
        self.commands_seen: list[str] = []
        self.configured = False  # a configuration line reached it (the drop_read_back fault)
        self.lock = threading.RLock()
        self.config: ConfigNode = parse(config_text, self.cli.banner_start)
        self._startup = self.running_config()

    @classmethod
    def from_spec(cls, spec: DeviceSpec, peers: Mapping[str, tuple[str, str]]) -> SimDevice:
        """A device freshly booted with the configuration its topology entry describes."""
        config = platform_by_name(spec.platform).initial_config(spec)
        leases = {i.name: i.address for i in spec.interfaces if i.dhcp and i.address}
        return cls(
            spec.name,
            spec.platform,
            config,
            peers=peers,
            fault=spec.fault,
            reject=spec.reject,
            leases=leases,
        )

    @classmethod
    def from_running_config(cls, name: str, platform: str, text: str) -> SimDevice:
        """A device whose configuration is `text` (e.g. another device's `show run`)."""
        return cls(name, platform, text)

    def running_config(self) -> str:
        """The configuration as `show running-config` prints it, without the header."""
        with self.lock:
            return render(self.cli.rules, self.config)

    def startup_config(self) -> str:
        """The configuration last saved with `write memory` (initially the boot config)."""
        with self.lock:
            return self._startup

    def save(self) -> None:
        with self.lock:
            self._startup = self.running_config()

    @property
    def hostname(self) -> str:
        with self.lock:
            for child in self.config.children:
                if child.text.startswith("hostname "):
                    return child.text.split(" ", 1)[1]
        return self.name

    @property
    def interfaces(self) -> list[SimInterface]:
        with self.lock:
            nodes = [c for c in self.config.children if c.text.startswith("interface ")]
            return [self._interface(node) for node in nodes]

    def _interface(self, node: ConfigNode) -> SimInterface:
        name = node.text.split(" ", 1)[1]
        address, description, enabled, leased = None, "", True, False
        for child in node.children:
            if child.text == "shutdown":
                enabled = False
            elif child.text.startswith("description "):
                description = child.text.split(" ", 1)[1]
            elif child.text == "ip address dhcp":
                address, leased = self.leases.get(name), name in self.leases
            elif child.text.startswith("ip address ") and not child.text.endswith("secondary"):
                address = parse_address(child.text.split()[2:])
        peer = self.peers.get(name)
        return SimInterface(name, address, description, enabled, peer, leased)

    def rejects(self, line: str) -> bool:
        """True if a fault rule says this line (configuration, or an exec command) must fail."""
        return any(pattern.search(line) for pattern in self.reject)

    def __repr__(self) -> str:
        ports = f"ssh={self.ssh_port}, telnet={self.telnet_port}"
        return f"SimDevice({self.name!r}, {self.platform!r}, {ports})"


def parse_address(words: list[str]) -> ipaddress.IPv4Interface | None:
    """`10.0.0.1 255.255.255.0` (IOS) or `10.0.0.1/24` (EOS) -> IPv4Interface."""
    try:
        if len(words) >= 2 and "/" not in words[0]:
            return ipaddress.IPv4Interface(f"{words[0]}/{words[1]}")
        return ipaddress.IPv4Interface(words[0]) if words else None
    except ValueError:
        return None
