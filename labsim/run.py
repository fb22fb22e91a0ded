"""Running a lab outside an event loop (`LabThread`) and standalone (`serve`, `labbot lab`)."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from types import TracebackType
from typing import Any

from rich.console import Console
from rich.table import Table

from labsim.lab import Lab, TopologySource, Transport


class LabThread:
    """`with LabThread(topology, **Lab.start options) as lab:` — the lab runs on its own
    event loop in a daemon thread, so sync code (netmiko, Nornir, sync tests) can use it."""

    def __init__(self, topology: TopologySource, **options: Any) -> None:
        self.topology = topology
        self.options = options
        self.lab: Lab | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._run, name="labsim", daemon=True)

    def __enter__(self) -> Lab:
        self._thread.start()
        self._ready.wait()
        if self._error is not None:
            self._thread.join()
            raise self._error
        assert self.lab is not None
        return self.lab

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join()

    def _run(self) -> None:
        try:
            asyncio.run(self._main())
        except BaseException as err:  # reported to the thread that entered the context
            self._error = err
            self._ready.set()

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        async with Lab.start(self.topology, **self.options) as lab:
            self.lab = lab
            self._ready.set()
            await self._stop.wait()


def lab_table(lab: Lab) -> Table:
    """The devices with their platform and ports, for people connecting by hand."""
    table = Table(title=f"Simulated lab on {lab.host}")
    for column in ("Device", "Platform", "Telnet", "SSH", "Interfaces", "Fault"):
        table.add_column(column)
    for device in lab.devices:
        addresses = ", ".join(
            f"{i.name} {i.address.with_prefixlen}" for i in device.interfaces if i.address
        )
        fault = device.fault.kind if device.fault else ""
        table.add_row(
            device.name,
            device.platform,
            str(device.telnet_port or "-"),
            str(device.ssh_port or "-"),
            addresses,
            fault,
        )
    return table


async def serve(
    topology_or_count: TopologySource,
    *,
    host: str = "127.0.0.1",
    base_port: int | None = None,
    inventory: str | Path | None = None,
    transport: Transport = "telnet",
    console: Console | None = None,
    **options: Any,
) -> None:
    """Start the lab, print its devices (and write `inventory` if given), run until cancelled.

    `options` are the other `Lab.start` keywords (ssh, telnet, username, password, secret).
    """
    console = console or Console()
    async with Lab.start(topology_or_count, host=host, base_port=base_port, **options) as lab:
        console.print(lab_table(lab))
        if inventory is not None:
            path = lab.write_inventory(inventory, transport)
            console.print(f"Nornir inventory ({transport}) written to {path}")
        console.print(
            f"SSH login {lab.options.username} / enable secret set; "
            "telnet consoles need no login. Ctrl-C stops the lab."
        )
        await asyncio.Event().wait()
