"""FRR lab topologies: routers with Linux interfaces and addresses, links; YAML and generated.

A topology file looks like `frrlab/topologies/three.yaml` (the default of `labbot lab --frr`):

    routers:
      R1:
        data: {asn: 65001}                    # free facts, copied into the Nornir inventory
        interfaces:
          lo: {address: 10.255.0.1/32}        # the loopback
          eth0: {address: 10.0.12.1/30, description: to R2}
          eth1: {address: 192.168.1.1/24}     # not on a link: a dummy interface
    links:
      - [R1:eth0, R2:eth0]                    # a veth pair

The result is a `labsim.Topology` whose devices have platform `frr`, so one shape of topology
serves the simulated and the real lab.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from labsim.topology import (
    DeviceSpec,
    InterfaceSpec,
    Link,
    Topology,
    TopologyError,
    check_links,
    demo_topology,
    load_topology,
)

PLATFORM = "frr"
LOOPBACK = "lo"
MAX_ROUTERS = 50  # ~25 MiB and 4 daemons each
DEFAULT_TOPOLOGY_FILE = Path(__file__).with_name("topologies") / "three.yaml"

# A router name is its hostname and part of its namespace's name; an interface is a Linux one.
ROUTER_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,23}")
INTERFACE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.-]{0,14}")


def load_frr_topology(path: str | Path) -> Topology:
    """Read an FRR topology YAML file; any problem raises TopologyError naming the file."""
    return load_topology(path, frr_topology_from_dict)


def frr_topology_from_dict(raw: object) -> Topology:
    """Build and check an FRR topology from plain data (the parsed YAML). Raises ValueError."""
    if not isinstance(raw, Mapping) or not isinstance(raw.get("routers"), Mapping):
        raise ValueError("expected a mapping with a 'routers' mapping (name -> router)")
    routers = tuple(_router(str(name), spec) for name, spec in raw["routers"].items())
    if not routers:
        raise ValueError("'routers' is empty")
    if len(routers) > MAX_ROUTERS:
        raise ValueError(f"{len(routers)} routers: at most {MAX_ROUTERS} run in one lab")
    names = {spec.name for spec in routers}
    topology = Topology(routers, tuple(_link(item, names) for item in raw.get("links") or ()))
    check_links(topology)
    for link in topology.links:
        if LOOPBACK in (link.a[1], link.b[1]):
            raise ValueError(f"link {link.a}-{link.b}: the loopback cannot be on a link")
    return topology


def _router(name: str, raw: object) -> DeviceSpec:
    if not ROUTER_NAME.fullmatch(name):
        raise ValueError(f"router {name!r}: use letters, digits, - and _ (at most 24)")
    if not isinstance(raw, Mapping):
        raise ValueError(f"router {name}: expected a mapping, got {raw!r}")
    unknown = set(raw) - {"platform", "interfaces", "data"}
    if unknown:
        raise ValueError(f"router {name}: unknown keys {sorted(unknown)}")
    if raw.get("platform", PLATFORM) != PLATFORM:
        raise ValueError(f"router {name}: platform must be {PLATFORM} in an FRR lab")
    interfaces = tuple(
        _interface(name, str(ifname), spec or {})
        for ifname, spec in (raw.get("interfaces") or {}).items()
    )
    return DeviceSpec(name, PLATFORM, interfaces, data=_data(raw.get("data") or {}, interfaces))


def _interface(router: str, name: str, raw: Mapping[str, Any]) -> InterfaceSpec:
    if not INTERFACE_NAME.fullmatch(name):
        raise ValueError(f"router {router}: {name!r} is not a Linux interface name (eth0, lo)")
    address = raw.get("address")
    try:
        parsed = ipaddress.IPv4Interface(address) if address else None
    except ValueError as err:
        raise ValueError(f"router {router} interface {name}: bad address {address!r}") from err
    description = str(raw.get("description", ""))
    if "\n" in description:
        raise ValueError(f"router {router} interface {name}: a description is one line")
    return InterfaceSpec(name, parsed, description)


def _data(raw: Mapping[str, Any], interfaces: tuple[InterfaceSpec, ...]) -> dict[str, Any]:
    """The router's facts: role router and its loopback address unless the file says otherwise."""
    data: dict[str, Any] = {"role": "router"}
    loopback = next((i.address for i in interfaces if i.name == LOOPBACK and i.address), None)
    if loopback is not None:
        data["loopback"] = str(loopback.ip)
    return {**data, **raw}


def _link(raw: object, routers: set[str]) -> Link:
    if not (isinstance(raw, list | tuple) and len(raw) == 2):
        raise ValueError(f"link {raw!r}: expected [ROUTER:INTERFACE, ROUTER:INTERFACE]")
    ends = []
    for end in raw:
        router, sep, interface = str(end).partition(":")
        if not sep or router not in routers:
            raise ValueError(f"link end {end!r}: expected ROUTER:INTERFACE of a router in the file")
        ends.append((router, interface))
    return Link(ends[0], ends[1])


def generated_topology(routers: int, *, ring: bool = False) -> Topology:
    """R1..Rn in a chain (or ring) of /30 links, loopbacks 10.255.x.y/32 and AS 65000+n:
    the simulator's demo topology with Linux names (Loopback0 -> lo, GigabitEthernet0/k -> ethk)."""
    if not 1 <= routers <= MAX_ROUTERS:
        raise TopologyError(f"an FRR lab has 1 to {MAX_ROUTERS} routers, not {routers}")
    demo = demo_topology(routers, switch=False, ring=ring)
    devices = tuple(
        DeviceSpec(
            spec.name,
            PLATFORM,
            tuple(replace(i, name=_linux_name(i.name)) for i in spec.interfaces if i.enabled),
            data=spec.data,
        )
        for spec in demo.devices
    )
    links = tuple(
        Link((link.a[0], _linux_name(link.a[1])), (link.b[0], _linux_name(link.b[1])))
        for link in demo.links
    )
    return Topology(devices, links)


def _linux_name(name: str) -> str:
    if name.startswith("Loopback"):
        return LOOPBACK
    return "eth" + name.rsplit("/", 1)[-1]
