"""`labbot lab --frr`: run an FRR lab in the foreground until Ctrl-C or SIGTERM, then remove it."""

from __future__ import annotations

import signal
import threading
from collections.abc import Mapping
from pathlib import Path
from types import FrameType

from rich.console import Console
from rich.table import Table

from frrlab.console import Console as SshPort
from frrlab.host import check_host
from frrlab.lab import DEFAULT_PREFIX, FrrLab, TopologySource
from frrlab.sweep import Swept, sweep


def serve_frr(
    topology: TopologySource = None,
    *,
    inventory: str | Path | None = None,
    console: Console | None = None,
    ssh: bool = False,
    management: bool = False,
    kernel_addresses: bool = False,
) -> None:
    """Remove what killed labs left, start the lab, print its routers (and write `inventory`),
    run until a stop signal.

    The first Ctrl-C or SIGTERM stops the lab; later ones are ignored so the teardown finishes.
    With `ssh`, each router also takes SSH logins landing in vtysh, and the inventory lists
    those (platform frr, with the lab's login); with `management` on port 22 of each router's
    own address, login admin/admin. With `kernel_addresses`, the addresses are set
    with `ip addr` in the namespaces and FRR's configs hold none.
    """
    console = console or Console()
    swept = sweep_frr()
    if swept.runs:
        console.print(swept.line())
    previous = {sig: signal.signal(sig, _stop_once) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        options = {"ssh": ssh, "management": management, "kernel_addresses": kernel_addresses}
        with FrrLab.run(topology, **options) as lab:
            console.print(lab_table(lab))
            if lab.not_run:
                console.print(not_run_line(lab.not_run), soft_wrap=True)  # one line
            if inventory is not None:
                path = lab.write_inventory(inventory, "ssh" if lab.ssh else "telnet")
                platform = "frr, SSH" if lab.ssh else "frr_telnet"
                console.print(f"Nornir inventory (platform {platform}) written to {path}")
            if lab.ssh_login is not None:
                console.print(f"SSH login: {lab.ssh_login.username} (password in the inventory)")
            console.print("Consoles need no login. Ctrl-C stops the lab and removes it.")
            threading.Event().wait()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def not_run_line(not_run: Mapping[str, str]) -> str:
    """One line naming the topology's nodes that are hosts, not routers, and so not run."""
    nodes = "; ".join(f"{name} ({reason})" for name, reason in not_run.items())
    return f"Not run here (hosts, not FRR routers): {nodes}"


def sweep_frr() -> Swept:
    """Remove the leftovers of `labbot lab --frr` runs whose process was killed (`kill -9`)."""
    check_host()
    return sweep(DEFAULT_PREFIX)


def _stop_once(signum: int, frame: FrameType | None) -> None:
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.SIG_IGN)
    raise KeyboardInterrupt


def lab_table(lab: FrrLab) -> Table:
    """The routers with their console, namespace and addresses, for people connecting by hand."""
    table = Table(title=f"FRR lab {lab.prefix} on {lab.host}")
    columns = ["Router", "Console (telnet)", *(["SSH"] if lab.ssh_ports else []), "Namespace"]
    for column in (*columns, "Interfaces"):
        table.add_column(column)
    for spec in lab.topology.devices:
        addresses = ", ".join(
            f"{i.name} {i.address.with_prefixlen}" for i in spec.interfaces if i.address
        )
        ssh = [_address(lab.ssh_ports[spec.name], lab.host)] if lab.ssh_ports else []
        port = str(lab.port(spec.name))
        table.add_row(spec.name, port, *ssh, lab.namespace(spec.name), addresses)
    return table


def _address(port: SshPort, lab_host: str) -> str:
    """The port alone on the lab's host; `address:port` at a router's own address."""
    return str(port.port) if port.host == lab_host else f"{port.host}:{port.port}"
