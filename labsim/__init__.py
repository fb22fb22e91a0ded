"""A simulated network lab: stateful IOS-like and EOS-like devices over SSH and telnet.

Public API (see the modules for details):
    Lab.start(topology, *, host, ssh, telnet, username, password, secret, base_port,
              faults, reject)            async context manager -> Lab
    LabThread(topology, **same options)  sync context manager -> Lab (loop in a thread)
    serve(topology_or_count, *, host, base_port, inventory, transport, console, **options)
    SimDevice, SimInterface, Topology, DeviceSpec, InterfaceSpec, Link, Fault
    demo_topology(n, *, switch=True, ring=False), load_topology(path), TopologyError
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from labsim.device import SimDevice, SimInterface
    from labsim.lab import Lab, resolve_topology
    from labsim.run import LabThread, lab_table, serve
    from labsim.topology import (
        DeviceSpec,
        Fault,
        InterfaceSpec,
        Link,
        Topology,
        TopologyError,
        demo_topology,
        load_topology,
        topology_from_dict,
    )

DEMO_TOPOLOGY_FILE = Path(__file__).with_name("topologies") / "demo.yaml"

# Imported on first use: the bot's template test needs the devices, not the SSH and telnet
# servers (asyncssh alone is ~0.8 s of `labbot serve`'s start).
_HOMES = {
    "labsim.device": ("SimDevice", "SimInterface"),
    "labsim.lab": ("Lab", "resolve_topology"),
    "labsim.run": ("LabThread", "lab_table", "serve"),
    "labsim.topology": (
        "DeviceSpec", "Fault", "InterfaceSpec", "Link", "Topology", "TopologyError",
        "demo_topology", "load_topology", "topology_from_dict",
    ),
}  # fmt: skip
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}


def __getattr__(name: str) -> Any:
    if name not in _HOME_OF:
        raise AttributeError(f"module 'labsim' has no attribute {name!r}")
    return getattr(importlib.import_module(_HOME_OF[name]), name)


__all__ = [
    "DEMO_TOPOLOGY_FILE",
    "DeviceSpec",
    "Fault",
    "InterfaceSpec",
    "Lab",
    "LabThread",
    "Link",
    "SimDevice",
    "SimInterface",
    "Topology",
    "TopologyError",
    "demo_topology",
    "lab_table",
    "load_topology",
    "resolve_topology",
    "serve",
    "topology_from_dict",
]
