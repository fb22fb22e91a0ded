"""Lab topologies: devices with interfaces and addresses, links, faults; YAML and generated.

A topology file looks like `labsim/topologies/demo.yaml`:

    devices:
      R1:
        platform: cisco_ios            # or arista_eos
        data: {role: core, asn: 65001}  # free facts, copied into the Nornir inventory
        interfaces:
          Loopback0: {address: 1.1.1.1/32}
          GigabitEthernet0/0: {address: 10.0.12.1/30, description: to R2}
          GigabitEthernet0/1: {address: 10.0.99.7/24, dhcp: true}  # leased: `ip address dhcp`
        fault: refuse                  # or hang, drop_at_exit, drop_read_back, {drop_after: 3},
                                       # {slow_start: 400}  (tests only)
        reject: ["^ntp server"]        # lines answered with "% Invalid input"
    links:
      - [R1:GigabitEthernet0/0, R2:GigabitEthernet0/0]
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from base.errors import InventoryError

# the devices' own data lives below the vendors (labsim.spec); said again here, where a
# topology's readers (frrlab, the tests, bench) have always found it
from labsim.spec import DeviceSpec as DeviceSpec
from labsim.spec import Fault as Fault
from labsim.spec import FaultKind as FaultKind
from labsim.spec import InterfaceSpec as InterfaceSpec
from labsim.spec import parse_fault as parse_fault
from labsim.vendors import platform_by_name

__all__ = [
    "DeviceSpec",
    "InterfaceSpec",
    "Link",
    "Topology",
    "TopologyError",
    "check_links",
    "demo_topology",
    "load_topology",
]

PLATFORMS = ("cisco_ios", "arista_eos")


class TopologyError(InventoryError):
    """A topology file or object is unusable; the message names the file and the problem."""


@dataclass(frozen=True)
class Link:
    a: tuple[str, str]  # (device, interface)
    b: tuple[str, str]


@dataclass(frozen=True)
class Topology:
    devices: tuple[DeviceSpec, ...]
    links: tuple[Link, ...] = ()

    def device(self, name: str) -> DeviceSpec:
        for spec in self.devices:
            if spec.name == name:
                return spec
        raise KeyError(name)

    def peer(self, device: str, interface: str) -> tuple[str, str] | None:
        """The (device, interface) at the other end of a link, if any."""
        for link in self.links:
            if link.a == (device, interface):
                return link.b
            if link.b == (device, interface):
                return link.a
        return None


def load_topology(path: str | Path, parse: Callable[[object], Topology] | None = None) -> Topology:
    """Read a topology YAML file with `parse` (default `topology_from_dict`, the simulated lab's
    form); any problem raises TopologyError naming the file."""
    path = Path(path)
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise TopologyError(f"cannot read topology file {path}: {err.strerror}") from err
    except yaml.YAMLError as err:
        raise TopologyError(f"topology file {path} is not valid YAML: {err}") from err
    try:
        return (parse or topology_from_dict)(raw)
    except (ValueError, TypeError, KeyError) as err:
        raise TopologyError(f"topology file {path}: {err}") from err


def topology_from_dict(raw: object) -> Topology:
    """Build and check a Topology from plain data (the parsed YAML). Raises ValueError."""
    if not isinstance(raw, Mapping) or not isinstance(raw.get("devices"), Mapping):
        raise ValueError("expected a mapping with a 'devices' mapping (name -> device)")
    devices = tuple(_device(str(name), spec) for name, spec in raw["devices"].items())
    if not devices:
        raise ValueError("'devices' is empty")
    names = {spec.name: spec for spec in devices}
    links = tuple(_link(item, names) for item in raw.get("links") or ())
    topology = Topology(devices, links)
    check_links(topology)
    return topology


def _device(name: str, raw: object) -> DeviceSpec:
    if not isinstance(raw, Mapping):
        raise ValueError(f"device {name}: expected a mapping, got {raw!r}")
    unknown = set(raw) - {"platform", "interfaces", "vlans", "data", "fault", "reject"}
    if unknown:
        raise ValueError(f"device {name}: unknown keys {sorted(unknown)}")
    platform = raw.get("platform", "cisco_ios")
    if platform not in PLATFORMS:
        raise ValueError(f"device {name}: platform {platform!r} is not one of {PLATFORMS}")
    canonical = platform_by_name(platform).canonical_interface
    interfaces = tuple(
        _interface(name, canonical(str(ifname)), spec or {})
        for ifname, spec in (raw.get("interfaces") or {}).items()
    )
    try:
        fault = parse_fault(raw.get("fault"))
    except ValueError as err:
        raise ValueError(f"device {name}: {err}") from err
    vlans = {int(vid): str(vname) for vid, vname in (raw.get("vlans") or {}).items()}
    reject = tuple(str(pattern) for pattern in raw.get("reject") or ())
    return DeviceSpec(name, platform, interfaces, vlans, dict(raw.get("data") or {}), fault, reject)


def _interface(device: str, name: str, raw: Mapping[str, Any]) -> InterfaceSpec:
    address = raw.get("address")
    try:
        parsed = ipaddress.IPv4Interface(address) if address else None
    except ValueError as err:
        raise ValueError(f"device {device} interface {name}: bad address {address!r}") from err
    dhcp = bool(raw.get("dhcp", False))
    if dhcp and parsed is None:
        raise ValueError(f"device {device} interface {name}: dhcp needs the leased address")
    description = str(raw.get("description", ""))
    return InterfaceSpec(name, parsed, description, bool(raw.get("enabled", True)), dhcp)


def _link(raw: object, devices: Mapping[str, DeviceSpec]) -> Link:
    if not (isinstance(raw, list | tuple) and len(raw) == 2):
        raise ValueError(f"link {raw!r}: expected [DEVICE:INTERFACE, DEVICE:INTERFACE]")
    ends = []
    for end in raw:
        device, sep, interface = str(end).partition(":")
        if not sep or not device or not interface:
            raise ValueError(f"link end {end!r}: expected DEVICE:INTERFACE")
        if device not in devices:
            raise ValueError(f"link {end}: no device {device}")
        ends.append(
            (device, platform_by_name(devices[device].platform).canonical_interface(interface))
        )
    return Link(ends[0], ends[1])


def check_links(topology: Topology) -> None:
    """Every link end names an interface of its device, and no interface is on two links."""
    seen: set[tuple[str, str]] = set()
    for link in topology.links:
        for device, interface in (link.a, link.b):
            spec = topology.device(device)
            if interface not in {i.name for i in spec.interfaces}:
                raise ValueError(f"link {device}:{interface}: {device} has no such interface")
            if (device, interface) in seen:
                raise ValueError(f"link {device}:{interface}: interface used by two links")
            seen.add((device, interface))


def demo_topology(routers: int = 3, *, switch: bool = True, ring: bool = False) -> Topology:
    """`routers` IOS routers R1..Rn in a chain (or ring) of /30 links, each with a loopback
    n.n.n.n/32 and an AS number in `data`; plus SW1 (arista_eos) on R1 over 10.0.100.0/24."""
    if routers < 1:
        raise ValueError("a demo topology needs at least one router")
    ifaces: dict[str, list[InterfaceSpec]] = {}
    for index in range(1, routers + 1):
        ifaces[f"R{index}"] = [InterfaceSpec("Loopback0", _loopback(index))]
    pairs = [(i, i + 1) for i in range(1, routers)]
    if ring and routers > 2:
        pairs.append((routers, 1))
    links = [_demo_link(ifaces, a, b, n) for n, (a, b) in enumerate(pairs)]
    devices = [
        DeviceSpec(name, "cisco_ios", _with_spare_ports(specs), data=_router_data(name))
        for name, specs in ifaces.items()
    ]
    if switch:
        devices[0], link = _attach_switch(devices[0])
        devices.append(_demo_switch())
        links.append(link)
    return Topology(tuple(devices), tuple(links))


def _loopback(index: int) -> ipaddress.IPv4Interface:
    return ipaddress.IPv4Interface(f"10.255.{index // 256}.{index % 256}/32")


def _router_data(name: str) -> dict[str, Any]:
    index = int(name[1:])
    return {"role": "router", "asn": 65000 + index, "loopback": str(_loopback(index).ip)}


def _demo_link(ifaces: dict[str, list[InterfaceSpec]], a: int, b: int, n: int) -> Link:
    """Link number n gets the n-th /30 of 10.0.0.0/8: .1 on router a, .2 on router b."""
    subnet = ipaddress.IPv4Network((167772160 + n * 4, 30))  # 10.0.0.0 + 4n
    ends = []
    for index, host, peer in ((a, 1, b), (b, 2, a)):
        name = f"R{index}"
        port = f"GigabitEthernet0/{len(ifaces[name]) - 1}"
        address = ipaddress.IPv4Interface(f"{subnet[host]}/30")
        ifaces[name].append(InterfaceSpec(port, address, f"to R{peer}"))
        ends.append((name, port))
    return Link(ends[0], ends[1])


def _with_spare_ports(specs: list[InterfaceSpec]) -> tuple[InterfaceSpec, ...]:
    """Routers have four GigabitEthernet ports; unused ones are shut like a fresh router."""
    used = {spec.name for spec in specs}
    spare = [
        InterfaceSpec(f"GigabitEthernet0/{port}", enabled=False)
        for port in range(4)
        if f"GigabitEthernet0/{port}" not in used
    ]
    return tuple(sorted([*specs, *spare], key=lambda s: (not s.name.startswith("Loop"), s.name)))


def _attach_switch(router: DeviceSpec) -> tuple[DeviceSpec, Link]:
    spare = next((s for s in router.interfaces if not s.enabled), None)
    if spare is None:
        raise ValueError(f"{router.name} has no free port for the switch")
    uplink = InterfaceSpec(spare.name, ipaddress.IPv4Interface("10.0.100.1/24"), "to SW1")
    interfaces = tuple(uplink if s.name == spare.name else s for s in router.interfaces)
    changed = DeviceSpec(router.name, router.platform, interfaces, data=router.data)
    return changed, Link((router.name, spare.name), ("SW1", "Ethernet1"))


def _demo_switch() -> DeviceSpec:
    interfaces = (
        InterfaceSpec("Ethernet1", ipaddress.IPv4Interface("10.0.100.2/24"), "to R1"),
        InterfaceSpec("Ethernet2"),
        InterfaceSpec("Ethernet3"),
        InterfaceSpec("Loopback0", ipaddress.IPv4Interface("10.255.255.1/32")),
    )
    data = {"role": "switch", "loopback": "10.255.255.1"}
    return DeviceSpec("SW1", "arista_eos", interfaces, {10: "users", 20: "servers"}, data)
