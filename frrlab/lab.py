"""A running FRR lab: namespaces, links, daemons and consoles of a topology, and its inventory.

From sync code `with FrrLab.run(topology) as lab: ...`; from async code
`async with FrrLab.start(topology) as lab: ...` (the host commands run in a worker thread).
Leaving the block, or a failure half-way through starting, ends everything: consoles,
daemons, vtysh sessions, namespaces (with their links) and the lab's folder.
"""

from __future__ import annotations

import asyncio
import secrets
import shutil
import subprocess
import tempfile
import threading
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import yaml

from frrlab import daemons, netns
from frrlab.clab import ClabLab, is_clab_file, load_clab_topology
from frrlab.console import Console, close_console, console_logins, open_console
from frrlab.daemons import RouterDir
from frrlab.host import FRR_DIR, FrrLabError, check_host, run
from frrlab.management import (
    KIND_LOGIN,
    SSH_PORT,
    account_files,
    management_addresses,
    mount_accounts,
)
from frrlab.ssh import SshLogin, add_user, check_sshd, host_key, open_ssh, remove_user
from frrlab.sweep import write_run_file
from frrlab.topology import (
    DEFAULT_TOPOLOGY_FILE,
    LOOPBACK,
    generated_topology,
    load_frr_topology,
)
from labsim.topology import Topology

DEFAULT_PREFIX = "frr-lab"
TopologySource = Topology | str | Path | int | None


def _lab_source(source: TopologySource) -> ClabLab:
    """The routers to run (with startup configs and nodes not run, from a `*.clab.yml`)."""
    if isinstance(source, str | Path) and is_clab_file(source):
        return load_clab_topology(source)
    return ClabLab(resolve_frr_topology(source))


def resolve_frr_topology(source: TopologySource) -> Topology:
    """A Topology as is, a YAML path (frrlab's form), a router count (a chain), or None for
    the default file."""
    if isinstance(source, Topology):
        return source
    if isinstance(source, int):
        return generated_topology(source)
    return load_frr_topology(source or DEFAULT_TOPOLOGY_FILE)


class FrrLab:
    """The routers of a started lab. Build it with `FrrLab.run(...)` or `FrrLab.start(...)`."""

    def __init__(
        self,
        topology: Topology,
        *,
        prefix: str = DEFAULT_PREFIX,
        host: str = "127.0.0.1",
        frr_dir: Path = FRR_DIR,
        ssh: bool = False,
        management: bool = False,
        kernel_addresses: bool = False,
        startup_configs: Mapping[str, str] | None = None,
        not_run: Mapping[str, str] | None = None,
        consoles: bool = True,
        console_ports: Mapping[str, int] | None = None,
    ) -> None:
        self.topology = topology
        self.startup_configs = startup_configs or {}  # frr.conf text loaded once daemons run
        self.not_run = not_run or {}  # nodes of the file not run here, with the reason
        self.prefix = f"{prefix}-{secrets.token_hex(3)}"  # names are host-wide: one per run
        self.host = host
        self.frr_dir = frr_dir
        self.consoles: dict[str, Console] = {}
        self.open_consoles = consoles  # False: vtysh only, no port on the host (a twin)
        # a router's console on this port, not a free one (the port GNS3 gave its node)
        self.console_ports = dict(console_ports or {})
        # also an SSH port per router, the login landing in vtysh (platform frr); with
        # `management`, port 22 of the router's own address, login admin/admin, as containerlab
        self.ssh = ssh or management
        self.management = management
        self.ssh_ports: dict[str, Console] = {}
        self.ssh_login: SshLogin | None = None
        # addresses set with `ip addr` in the namespaces, none in FRR's config (as containerlab
        # labs and lab scripts set them): labbot must learn them from the routers' state
        self.kernel_addresses = kernel_addresses
        self.dirs: dict[str, RouterDir] = {}
        self.zebra_pids: dict[str, int] = {}
        self._folder: Path | None = None
        self._lock = threading.Lock()  # a stop waits for a start still running in a thread

    @classmethod
    @contextmanager
    def run(cls, topology: TopologySource = None, **options: Any) -> Iterator[FrrLab]:
        """Start the lab, yield it, end it (also on errors and Ctrl-C)."""
        lab = cls._of(topology, options)
        try:
            lab._start()
            yield lab
        finally:
            lab.stop()

    @classmethod
    @asynccontextmanager
    async def start(cls, topology: TopologySource = None, **options: Any) -> AsyncIterator[FrrLab]:
        """`run` for async code: starting and stopping happen in a worker thread."""
        lab = cls._of(topology, options)
        try:
            await asyncio.to_thread(lab._start)
            yield lab
        finally:
            await asyncio.to_thread(lab.stop)

    @classmethod
    def _of(cls, topology: TopologySource, options: dict[str, Any]) -> FrrLab:
        source = _lab_source(topology)
        configs, not_run = source.startup_configs, source.not_run
        return cls(source.topology, startup_configs=configs, not_run=not_run, **options)

    @property
    def routers(self) -> list[str]:
        return [spec.name for spec in self.topology.devices]

    def namespace(self, router: str) -> str:
        return f"{self.prefix}-{router}"

    def port(self, router: str) -> int:
        return self.consoles[router].port

    def _start(self) -> None:
        with self._lock:
            check_host(self.frr_dir)
            if self.ssh:
                check_sshd()
            self._folder = Path(tempfile.mkdtemp(prefix=f"{self.prefix}-"))
            self._folder.chmod(0o755)  # the daemons run as the frr user
            write_run_file(self._folder, self.prefix)  # a `kill -9`ed owner: sweep() finds it
            self._create_namespaces()
            self._start_daemons(self._folder)
            self._load_startup_configs(self._folder)
            for router in self.routers if self.open_consoles else ():
                log = self._console_log(router)
                vty = self.dirs[router].run
                self.consoles[router] = open_console(
                    router,
                    self.host,
                    self.zebra_pids[router],
                    vty,
                    log,
                    self._history(router),
                    port=self.console_ports.get(router),
                )
            if self.ssh:
                self._open_ssh(self._folder)

    def _load_startup_configs(self, folder: Path) -> None:
        """Load each router's startup config (an frr.conf) into its running daemons."""
        for router, config in self.startup_configs.items():
            path = folder / router / "startup.conf"
            path.write_text(config, encoding="utf-8")
            run([*self._vtysh_argv(router), "-f", str(path)], what=f"startup-config of {router}")

    def _open_ssh(self, folder: Path) -> None:
        lab_user = add_user(self.prefix)
        key = host_key(folder)
        if self.management:
            self.ssh_login, accounts = KIND_LOGIN, account_files(folder, lab_user.username)
            addresses, port = management_addresses(self.routers), SSH_PORT
        else:
            self.ssh_login, accounts = lab_user, None
            addresses, port = dict.fromkeys(self.routers, self.host), None
        for router in self.routers:
            pid, dirs = self.zebra_pids[router], self.dirs[router]
            if accounts is not None:
                mount_accounts(pid, accounts)
            self.ssh_ports[router] = open_ssh(
                router, addresses[router], pid, dirs, key, self.ssh_login, port
            )

    @property
    def _stub_namespace(self) -> str:
        """Where the far ends of interfaces on no link live (a veth needs a peer to be up); no
        router's namespace can have this name (router names start with a letter)."""
        return f"{self.prefix}-_stubs"

    def _namespaces(self) -> list[str]:
        return [self.namespace(r) for r in self.routers] + [self._stub_namespace]

    def _create_namespaces(self) -> None:
        """A namespace per router, a veth pair per link, and one for each interface on no link
        (a dummy interface would do, but not every kernel has the module)."""
        veths = [
            (self.namespace(a[0]), a[1], self.namespace(b[0]), b[1])
            for a, b in ((link.a, link.b) for link in self.topology.links)
        ]
        stubs = [
            (self.namespace(spec.name), i.name, self._stub_namespace, f"stub{n}")
            for n, (spec, i) in enumerate(
                (spec, i)
                for spec in self.topology.devices
                for i in spec.interfaces
                if i.name != LOOPBACK and self.topology.peer(spec.name, i.name) is None
            )
        ]
        stub_namespaces = [self._stub_namespace] if stubs else []
        netns.create([self.namespace(r) for r in self.routers] + stub_namespaces, veths + stubs)
        if stubs:
            netns.bring_up(self._stub_namespace, [peer for *_, peer in stubs])

    def _start_daemons(self, folder: Path) -> None:
        """Every router's start script at once, then wait for each."""
        started: dict[str, subprocess.Popen[str]] = {}
        try:
            for spec in self.topology.devices:
                kernel = self.kernel_addresses
                folders = daemons.prepare(folder / spec.name, spec, kernel_addresses=kernel)
                self.dirs[spec.name] = folders
                script = daemons.start_script(folders, spec, self.frr_dir, kernel_addresses=kernel)
                started[spec.name] = daemons.launch(self.namespace(spec.name), script)
            for name, process in started.items():
                self.zebra_pids[name] = daemons.finish(name, process, self.dirs[name])
        finally:
            for process in started.values():
                if process.poll() is None:
                    process.kill()
                    process.wait()

    def stop(self) -> None:
        """End everything the lab started; safe to call twice and after a failed start."""
        with self._lock:
            for console in (*self.consoles.values(), *self.ssh_ports.values()):
                close_console(console.process)
            self.consoles.clear()
            self.ssh_ports.clear()
            netns.destroy(self._namespaces())  # also ends the SSH sessions (sshd runs inside)
            if self.ssh:
                remove_user(self.prefix)  # (if a start got as far as creating it)
                self.ssh_login = None
            if self._folder is not None:
                shutil.rmtree(self._folder, ignore_errors=True)
                self._folder = None

    def _history(self, router: str) -> Path:
        assert self._folder is not None
        return self._folder / f"{router}.console.history"

    def _console_log(self, router: str) -> Path:
        assert self._folder is not None
        return self._folder / f"{router}.console.log"

    def console_logins(self, router: str) -> int:
        """How many sessions were opened on the router's console so far."""
        return console_logins(self._console_log(router))

    def ssh_logins(self, router: str) -> int:
        """How many connections the router's SSH port took so far."""
        assert self._folder is not None
        return console_logins(self._folder / f"{router}.ssh.log")

    def console_history(self, router: str) -> list[str]:
        """Every line typed on the router's console so far (vtysh's history), oldest first."""
        return self._history(router).read_text(errors="replace").splitlines()

    def vtysh(self, router: str, *commands: str) -> str:
        """Run vtysh commands on a router (what its console would answer), for checks; the
        first refused command ends the run with FrrLabError."""
        argv = self._vtysh_argv(router)
        for command in commands:
            argv += ["-c", command]
        return run(argv, what=f"vtysh on {router}")

    def type_lines(self, router: str, lines: Sequence[str]) -> str:
        """Type `lines` into a vtysh session on a router as a console user would, one after
        the other whatever each answers; what vtysh printed (each prompt and line echoed)."""
        stdin = "".join(f"{line}\n" for line in lines)
        return run(self._vtysh_argv(router), stdin=stdin, what=f"vtysh on {router}")

    def _vtysh_argv(self, router: str) -> list[str]:
        argv = ["nsenter", "-t", str(self.zebra_pids[router]), "-n", "-u", "-m", "vtysh"]
        return [*argv, "--vty_socket", str(self.dirs[router].run)]

    def memory_bytes(self) -> dict[str, int]:
        """Resident memory of each router's daemons."""
        return {router: daemons.memory_bytes(self.dirs[router]) for router in self.routers}

    def nornir_hosts(self, transport: str = "telnet") -> dict[str, dict[str, Any]]:
        """SimpleInventory hosts with the topology's facts: the consoles (platform frr_telnet,
        no credentials: a console needs none), or with `transport="ssh"` the SSH ports
        (platform frr) with the lab's login."""
        hosts = {
            spec.name: {
                "hostname": self.host,
                "port": self.port(spec.name),
                "platform": "frr_telnet",
                "data": {**spec.data, "vendor": "frr", "interfaces": self._interfaces(spec.name)},
            }
            for spec in self.topology.devices
        }
        if transport == "ssh":
            if self.ssh_login is None:
                raise FrrLabError("this lab has no SSH ports: start it with ssh=True (--ssh)")
            login = {"username": self.ssh_login.username, "password": self.ssh_login.password}
            for name, host in hosts.items():
                ssh = self.ssh_ports[name]
                host |= {"hostname": ssh.host, "port": ssh.port, "platform": "frr", **login}
        return hosts

    def write_inventory(self, path: str | Path, transport: str = "telnet") -> Path:
        """Write the Nornir SimpleInventory hosts.yaml (see nornir_hosts) and return its path;
        only its owner may read it (it may hold the lab's SSH password)."""
        path = Path(path)
        path.touch(mode=0o600)
        path.write_text(yaml.safe_dump(self.nornir_hosts(transport), sort_keys=False))
        return path

    def _interfaces(self, router: str) -> dict[str, dict[str, str | None]]:
        facts = {}
        for interface in self.topology.device(router).interfaces:
            peer = self.topology.peer(router, interface.name)
            facts[interface.name] = {
                "address": interface.address.with_prefixlen if interface.address else None,
                "peer": ":".join(peer) if peer else None,
            }
        return facts
