"""A twin of a whole FRR lab: the same routers, links and running configurations in network
namespaces of its own, for one rehearsal of a change (`workflow/phases/lab_twin_run.py` drives it).

`FrrLabTwins().open(interfaces, configs, links)` builds the twin and yields a `RunningTwin`;
leaving the block ends it whatever happened (daemons, namespaces, folder). Its names start with
TWIN_PREFIX and it writes frrlab's run file, so the twin of a killed owner is removed by the next
twin's start (`sweep`). Nothing is shared with the real lab: namespaces, vty sockets and folders
of its own, and no console port on the host (vtysh only).
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager

from frrlab.host import FrrLabError, check_host
from frrlab.lab import FrrLab
from frrlab.sweep import sweep
from frrlab.topology import PLATFORM
from frrlab.twin import config_lines, refused_lines
from labsim.topology import DeviceSpec, InterfaceSpec, Link, Topology

__all__ = ["FrrLabTwins"]

TWIN_PREFIX = "labbot-twin"
Interfaces = Sequence[tuple[str, str | None]]  # (interface, address with its length, or None)
LinkEnds = tuple[str, str, str, str]  # (router, interface, router, interface)


class RunningTwin:
    """The started twin: type lines into a router, read what it shows."""

    def __init__(self, lab: FrrLab) -> None:
        self._lab = lab

    def type_lines(self, router: str, lines: Sequence[str]) -> list[str]:
        """Type `lines` in configuration mode as a console user would; `line: reply` for each
        line the router refused."""
        typed = self._lab.type_lines(router, ["configure terminal", *lines, "end"])
        return refused_lines(typed)

    def read(self, router: str, command: str) -> str:
        return self._lab.vtysh(router, command)

    def read_json(self, router: str, commands: Sequence[str]) -> list[str]:
        """What each of `commands` (each printing one JSON document) printed, read in one vtysh
        run: a vtysh costs ~50 ms of CPU to start, and a twin of 20 routers polls each target
        every round. One read per command when the output does not split into as many."""
        printed = self._lab.vtysh(router, *commands)
        documents = _documents(printed)
        if len(documents) != len(commands):
            return [self.read(router, command) for command in commands]
        return documents


class FrrLabTwins:
    """Twins of FRR labs on this host (root, FRR installed); `workflow.phases.lab_twin.TwinLabs`."""

    def unavailable(self) -> str | None:
        """Why this host cannot run a twin (None: it can)."""
        try:
            check_host()
        except FrrLabError as err:
            return str(err)
        return None

    @contextmanager
    def open(
        self,
        interfaces: Mapping[str, Interfaces],
        configs: Mapping[str, str],
        links: Sequence[LinkEnds],
    ) -> Iterator[RunningTwin]:
        """The twin of the routers (their interfaces and running configs) and links."""
        sweep(TWIN_PREFIX)  # what twins of a killed bot left
        topology = twin_topology(interfaces, links)
        with FrrLab.run(topology, prefix=TWIN_PREFIX, consoles=False) as lab:
            for router, config in configs.items():
                lab.type_lines(router, ["configure terminal", *config_lines(config), "end"])
            yield RunningTwin(lab)


def _documents(printed: str) -> list[str]:
    """The JSON documents printed one after the other, each as its text."""
    decoder, documents, at = json.JSONDecoder(), list[str](), 0
    while True:
        while at < len(printed) and printed[at].isspace():
            at += 1
        if at == len(printed):
            return documents
        try:
            _, end = decoder.raw_decode(printed, at)
        except ValueError:
            return []
        documents.append(printed[at:end])
        at = end


def twin_topology(interfaces: Mapping[str, Interfaces], links: Sequence[LinkEnds]) -> Topology:
    """The lab's routers and links as an FRR lab topology (IPv4 addresses; others are in the
    running configs typed in afterwards)."""
    devices = tuple(
        DeviceSpec(name, PLATFORM, tuple(InterfaceSpec(i, _ipv4(address)) for i, address in own))
        for name, own in interfaces.items()
    )
    return Topology(devices, tuple(Link((a, a_if), (b, b_if)) for a, a_if, b, b_if in links))


def _ipv4(address: str | None) -> ipaddress.IPv4Interface | None:
    if address is None:
        return None
    parsed = ipaddress.ip_interface(address)
    return parsed if isinstance(parsed, ipaddress.IPv4Interface) else None
