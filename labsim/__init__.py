"""A simulated network lab: stateful IOS-like and EOS-like devices over SSH and telnet.

Public API (see the modules for details):
    Lab.start(topology, *, host, ssh, telnet, username, password, secret, base_port,
              faults, reject)            async context manager -> Lab
    LabThread(topology, **same options)  sync context manager -> Lab (loop in a thread)
    serve(topology_or_count, *, host, base_port, inventory, transport, console, **options)
    SimDevice, SimInterface, Topology, DeviceSpec, InterfaceSpec, Link, Fault
    demo_topology(n, *, switch=True, ring=False), load_topology(path), TopologyError
"""

from pathlib import Path

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
