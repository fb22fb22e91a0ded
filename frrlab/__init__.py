"""A real routing lab: FRRouting routers in Linux network namespaces, consoles on 127.0.0.1.

Public API (see the modules for details):
    FrrLab.run(topology=None, *, prefix, host, frr_dir, ssh, management, kernel_addresses) -> FrrLab
    FrrLab.start(...)                                       the same, async
        lab.routers, lab.port(router), lab.nornir_hosts(), lab.write_inventory(path),
        lab.vtysh(router, *commands), lab.memory_bytes(), lab.namespace(router)
    serve_frr(topology, *, inventory, console)              `labbot lab --frr`
    sweep_frr() -> Swept                                    `labbot lab --frr --sweep`
    load_frr_topology(path), generated_topology(n, *, ring=False), DEFAULT_TOPOLOGY_FILE
    check_host(), FrrLabError
A topology is None (the shipped three-router chain), a YAML path, a router count (a chain) or a
`labsim.Topology` of platform `frr` devices. Needs root, the Debian packages frr, socat, iproute2.
"""

from frrlab.host import FrrLabError, check_host
from frrlab.lab import FrrLab, resolve_frr_topology
from frrlab.serve import serve_frr, sweep_frr
from frrlab.topology import DEFAULT_TOPOLOGY_FILE, generated_topology, load_frr_topology

__all__ = [
    "DEFAULT_TOPOLOGY_FILE",
    "FrrLab",
    "FrrLabError",
    "check_host",
    "generated_topology",
    "load_frr_topology",
    "resolve_frr_topology",
    "serve_frr",
    "sweep_frr",
]
