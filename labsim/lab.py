"""A running lab: every device of a topology listening on loopback, plus its Nornir inventory.

In async code `async with Lab.start(demo_topology(3)) as lab: ...`; from sync code (netmiko,
Nornir, sync tests) `with LabThread(path_or_topology) as lab: ...` (labsim.run).
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

import asyncssh
import yaml

from labsim.device import SimDevice
from labsim.spec import Fault, parse_fault
from labsim.topology import Topology, demo_topology, load_topology
from labsim.transport import Silent, SSHLogin, TelnetConsole, listen, reserve_closed_port

Transport = Literal["telnet", "ssh"]
TopologySource = Topology | str | Path | int


def resolve_topology(source: TopologySource) -> Topology:
    """A Topology as is, a YAML path, or a device count for `demo_topology(n)`."""
    if isinstance(source, Topology):
        return source
    if isinstance(source, int):
        return demo_topology(source, switch=source > 1)
    return load_topology(source)


@dataclass(frozen=True)
class LabOptions:
    host: str = "127.0.0.1"
    ssh: bool = True
    telnet: bool = True
    username: str = "admin"
    password: str = "admin"
    secret: str = "enable"
    base_port: int | None = None  # device i: telnet base+2i, ssh base+2i+1; None: OS picks
    console_exec: Literal["enable", "user"] = "enable"  # where a telnet console lands (# or >)
    privilege: int = 1  # the SSH user's level: 15 lands in `#`, lower in `>` (then `enable`)


class LiveSessions(set[Any]):
    """The connections open on a lab's devices, and the most that were ever open at once."""

    peak = 0

    def add(self, connection: Any) -> None:
        super().add(connection)
        self.peak = max(self.peak, len(self))


class Lab:
    """The devices of a started lab. Build it with `Lab.start(...)` (or `LabThread`)."""

    def __init__(self, topology: Topology, devices: list[SimDevice], options: LabOptions) -> None:
        self.topology = topology
        self.devices = devices
        self.options = options
        self.host = options.host
        self._servers: list[asyncio.Server | asyncssh.SSHAcceptor] = []
        self._reserved: list[socket.socket] = []
        self._live = LiveSessions()

    @classmethod
    @asynccontextmanager
    async def start(
        cls,
        topology: TopologySource,
        *,
        host: str = "127.0.0.1",
        ssh: bool = True,
        telnet: bool = True,
        username: str = "admin",
        password: str = "admin",
        secret: str = "enable",
        base_port: int | None = None,
        faults: Mapping[str, Fault | str | Mapping[str, int]] | None = None,
        reject: Mapping[str, list[str]] | None = None,
        console_exec: Literal["enable", "user"] = "enable",
        privilege: int = 1,
    ) -> AsyncIterator[Lab]:
        """Start every device; `faults`/`reject` (by device name) override the topology's.
        `console_exec="user"`: consoles land at `R1>` like a freshly booted IOSv;
        `privilege=15`: SSH logins land at `R1#`. `secret=""`: `enable` asks for none."""
        options = LabOptions(
            host, ssh, telnet, username, password, secret, base_port, console_exec, privilege
        )
        lab = cls(resolve_topology(topology), [], options)
        lab.devices = lab._build_devices(faults or {}, reject or {})
        try:
            await lab._listen()
            yield lab
        finally:
            await lab._stop()

    @property
    def peak_sessions(self) -> int:
        """The most connections (telnet consoles, SSH logins) ever open on the lab's devices at
        once."""
        return self._live.peak

    def device(self, name: str) -> SimDevice:
        for device in self.devices:
            if device.name == name:
                return device
        raise KeyError(f"no device {name!r} in the lab (have {[d.name for d in self.devices]})")

    def nornir_hosts(self, transport: Transport = "telnet") -> dict[str, dict[str, Any]]:
        """SimpleInventory hosts: hostname, port, netmiko platform and topology facts.
        Credentials are not included: they come from settings/environment."""
        hosts: dict[str, dict[str, Any]] = {}
        for device in self.devices:
            port = device.telnet_port if transport == "telnet" else device.ssh_port
            if port is None:
                raise ValueError(f"the lab was started without {transport}")
            suffix = "_telnet" if transport == "telnet" else ""
            hosts[device.name] = {
                "hostname": self.host,
                "port": port,
                "platform": device.platform + suffix,
                "data": self._facts(device),
            }
        return hosts

    def write_inventory(self, path: str | Path, transport: Transport = "telnet") -> Path:
        """Write a Nornir SimpleInventory hosts.yaml (no credentials) and return its path."""
        path = Path(path)
        path.write_text(yaml.safe_dump(self.nornir_hosts(transport), sort_keys=False))
        return path

    def _facts(self, device: SimDevice) -> dict[str, Any]:
        spec = self.topology.device(device.name)
        interfaces = {
            i.name: {
                "address": i.address.with_prefixlen if i.address else None,
                "peer": ":".join(i.peer) if i.peer else None,
            }
            for i in device.interfaces
        }
        # `simulator`: labbot runs no post-checks here (the simulator runs no routing protocols)
        return {
            **spec.data,
            "vendor": device.platform,
            "simulator": "labsim",
            "interfaces": interfaces,
        }

    def _build_devices(
        self, faults: Mapping[str, object], reject: Mapping[str, list[str]]
    ) -> list[SimDevice]:
        unknown = (set(faults) | set(reject)) - {spec.name for spec in self.topology.devices}
        if unknown:
            raise KeyError(f"faults or reject name devices not in the topology: {sorted(unknown)}")
        devices = []
        for spec in self.topology.devices:
            peers = {
                i.name: peer
                for i in spec.interfaces
                if (peer := self.topology.peer(spec.name, i.name)) is not None
            }
            if spec.name in faults:
                spec = replace(spec, fault=parse_fault(faults[spec.name]))
            if spec.name in reject:
                spec = replace(spec, reject=tuple(reject[spec.name]))
            devices.append(SimDevice.from_spec(spec, peers))
        return devices

    async def _listen(self) -> None:
        await asyncio.gather(*(self._listen_device(i, d) for i, d in enumerate(self.devices)))

    async def _listen_device(self, index: int, device: SimDevice) -> None:
        base = self.options.base_port
        ports = (0, 0) if base is None else (base + 2 * index, base + 2 * index + 1)
        if self.options.telnet:
            device.telnet_port = await self._open(device, "telnet", ports[0])
        if self.options.ssh:
            device.ssh_port = await self._open(device, "ssh", ports[1])

    async def _open(self, device: SimDevice, kind: Transport, port: int) -> int:
        host, fault = self.options.host, device.fault
        if fault is not None and fault.kind == "refuse":
            sock = reserve_closed_port(host, port)
            self._reserved.append(sock)
            return int(sock.getsockname()[1])
        if fault is not None and fault.kind == "hang":
            server = await listen(lambda: Silent(self._live), host, port)
        elif kind == "telnet":
            secret, privileged = self.options.secret, self.options.console_exec == "enable"
            server = await listen(
                lambda: TelnetConsole(device, secret, self._live, privileged=privileged), host, port
            )
        else:
            return await self._open_ssh(device, port)
        self._servers.append(server)
        return int(server.sockets[0].getsockname()[1])

    async def _open_ssh(self, device: SimDevice, port: int) -> int:
        opts = self.options
        credentials = (opts.username, opts.password, opts.secret)
        privileged = opts.privilege >= 15
        acceptor = await asyncssh.create_server(
            lambda: SSHLogin(device, credentials, self._live, privileged=privileged),
            opts.host,
            port,
            server_host_keys=[_host_key()],
            encoding=None,
            line_editor=False,
            reuse_address=True,
        )
        self._servers.append(acceptor)
        return int(acceptor.sockets[0].getsockname()[1])

    async def _stop(self) -> None:
        for server in self._servers:
            server.close()
        for connection in list(self._live):
            connection.close()
        for sock in self._reserved:
            sock.close()
        await asyncio.gather(*(server.wait_closed() for server in self._servers))
        self._servers.clear()


_KEY: list[asyncssh.SSHKey] = []


def _host_key() -> asyncssh.SSHKey:
    """One ed25519 host key per process: generating it is cheap, but 100 of them are not."""
    if not _KEY:
        _KEY.append(asyncssh.generate_private_key("ssh-ed25519"))
    return _KEY[0]
