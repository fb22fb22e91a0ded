"""The read-only `facts` variable every template may read: one device's facts from the lab.

A template loops over `facts.interfaces` or `facts.neighbors` instead of taking per-device
lists as parameters, so nobody (no LLM) has to write per-device values. For one device:

    facts.name, facts.platform (cisco_ios_telnet), facts.family (cisco_ios)
    facts.router_id     first loopback IPv4 address, else the highest IPv4 interface address
                        (what IOS would choose); absent when the device has no IPv4 address
    facts.interfaces    [{name, address ("10.0.12.1/24" or None), enabled, loopback}]
    facts.neighbors     [{interface, device, device_interface, address}] one per link: the local
                        interface, the device and interface at the other end, and that
                        interface's IPv4/IPv6 address (None when unknown)

Facts are data, like parameters: the renderer prints them verbatim and never evaluates them. A
value with a line break would still print as a second command, so the graph refuses devices
whose facts hold one (`workflow.phases.previews.facts_errors`) before any rendering.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NotRequired, TypedDict

from workflow.model import DeviceFacts, InterfaceFacts, Link, ParamSpec, Topology, link_ends

__all__ = ["TemplateFacts", "example_lab", "example_targets", "lab_facts"]


class FactsInterface(TypedDict):
    name: str
    address: str | None
    enabled: bool
    loopback: bool


class FactsNeighbor(TypedDict):
    interface: str  # the local interface of the link
    device: str
    device_interface: str
    address: str | None  # the neighbor interface's address, without prefix length


class TemplateFacts(TypedDict):
    name: str
    platform: str
    family: str
    router_id: NotRequired[str]
    interfaces: list[FactsInterface]
    neighbors: list[FactsNeighbor]


def is_loopback(interface: str) -> bool:
    return interface.casefold().startswith(("loopback", "lo"))


def router_id(interfaces: Iterable[InterfaceFacts]) -> str | None:
    """The first loopback's IPv4 address, else the highest IPv4 address of an interface that
    is up; None when there is none."""
    loopbacks: list[ipaddress.IPv4Address] = []
    others: list[ipaddress.IPv4Address] = []
    for interface in interfaces:
        if not (interface["address"] and interface["enabled"]):
            continue
        address = ipaddress.ip_interface(interface["address"]).ip
        if isinstance(address, ipaddress.IPv4Address):
            (loopbacks if is_loopback(interface["name"]) else others).append(address)
    if loopbacks:
        return str(loopbacks[0])
    return str(max(others)) if others else None


def _view(facts: DeviceFacts, neighbors: list[FactsNeighbor]) -> TemplateFacts:
    view = TemplateFacts(
        name=facts["name"],
        platform=facts["platform"],
        family=facts["family"],
        interfaces=[
            FactsInterface(
                name=i["name"],
                address=i["address"],
                enabled=i["enabled"],
                loopback=is_loopback(i["name"]),
            )
            for i in facts["interfaces"]
        ],
        neighbors=neighbors,
    )
    rid = router_id(facts["interfaces"])
    if rid is not None:
        view["router_id"] = rid
    return view


def _neighbors(topology: Topology) -> dict[str, list[FactsNeighbor]]:
    """Each device's links, seen from its side (one pass over devices and links)."""
    addresses: dict[tuple[str, str], str | None] = {}
    for name, facts in topology["devices"].items():
        for interface in facts["interfaces"]:
            address = interface["address"]
            ip = str(ipaddress.ip_interface(address).ip) if address else None
            addresses[(name, interface["name"])] = ip
    found: dict[str, list[FactsNeighbor]] = {}
    for link in topology["links"]:
        a_end, b_end = link_ends(link)
        for (near, near_interface), far in ((a_end, b_end), (b_end, a_end)):
            found.setdefault(near, []).append(
                FactsNeighbor(
                    interface=near_interface,
                    device=far[0],
                    device_interface=far[1],
                    address=addresses.get(far),
                )
            )
    return found


def lab_facts(topology: Topology) -> dict[str, TemplateFacts]:
    """The `facts` of every device whose facts could be read."""
    neighbors = _neighbors(topology)
    return {
        name: _view(facts, neighbors.get(name, []))
        for name, facts in topology["devices"].items()
        if "error" not in facts
    }


# Interface names per vendor family for the example device (cisco_ios names otherwise).
_EXAMPLE_NAMES = {
    "arista_eos": ("Ethernet1", "Ethernet2", "Loopback0"),
    "juniper_junos": ("ge-0/0/0", "ge-0/0/1", "lo0"),
    "huawei_vrp": ("GigabitEthernet0/0/0", "GigabitEthernet0/0/1", "LoopBack0"),
    "frr": ("eth0", "eth1", "lo"),
}


def example_facts(family: str) -> TemplateFacts:
    """Facts of a made-up router R1 (linked to R2, a loopback, one unaddressed interface down),
    for rendering a template's example when no lab device of `family` is at hand."""
    return lab_facts(example_lab({family: ""}))["R1"]


def example_lab(configs: Mapping[str, str]) -> Topology:
    """A made-up lab for templates checked away from any lab: per family (sorted), a router
    holding its `configs[family]` running configuration linked to a second one, each with an
    address on the link, a loopback and one unaddressed interface down. The first family's pair
    is R1 and R2, the next R3 and R4, and so on; the first of each pair is its family's target."""
    devices: dict[str, DeviceFacts] = {}
    links: list[Link] = []
    for index, (family, config) in enumerate(sorted(configs.items())):
        link, spare, loopback = _EXAMPLE_NAMES.get(
            family, ("GigabitEthernet0/0", "GigabitEthernet0/1", "Loopback0")
        )
        first, second = f"R{2 * index + 1}", f"R{2 * index + 2}"
        for name, host, running in ((first, 1, config), (second, 2, "")):
            devices[name] = DeviceFacts(
                name=name,
                platform=family,
                family=family,
                interfaces=[
                    InterfaceFacts(name=link, address=f"10.0.12.{host}/24", enabled=True),
                    InterfaceFacts(name=spare, address=None, enabled=False),
                    InterfaceFacts(name=loopback, address=f"10.255.0.{host}/32", enabled=True),
                ],
                running_config=running,
            )
        links.append(Link(a_device=first, a_interface=link, b_device=second, b_interface=link))
    return Topology(devices=devices, links=links, unusable=[])


def example_targets(lab: Topology) -> list[str]:
    """The target of each family in an `example_lab`: the first router of its pair."""
    firsts: dict[str, str] = {}
    for name, facts in lab["devices"].items():
        firsts.setdefault(facts["family"], name)
    return list(firsts.values())


def in_own_names(
    example: Mapping[str, Any], schema: Mapping[str, ParamSpec], facts: TemplateFacts
) -> dict[str, Any]:
    """`example` with each interface the device does not have named as one it has, a loopback
    by a loopback (one example serves every family: the Junos `ge-0/0/0.0`, `lo0.0` are `eth0`,
    `lo` on FRR); a name it has (`ge-0/0/0` of `ge-0/0/0.0`) stays."""
    own = dict(example)
    for key, value in example.items():
        spec = schema.get(key)
        items = spec.get("items") if spec is not None else None
        if spec is not None and spec["type"] == "interface":
            own[key] = _own_names([value], facts)[0]
        elif items is not None and items["type"] == "interface" and isinstance(value, list):
            own[key] = _own_names(value, facts)
    return own


def _own_names(interfaces: Sequence[object], facts: TemplateFacts) -> list[object]:
    """Each interface as it is when the device has it, else its next of the same kind."""
    names = [interface["name"] for interface in facts["interfaces"]]
    spare = {
        loopback: iter([n for n in names if is_loopback(n) == loopback and n not in interfaces])
        for loopback in (True, False)
    }
    return [
        name
        if not isinstance(name, str) or name.split(".")[0] in names
        else next(spare[is_loopback(name)], name)
        for name in interfaces
    ]
