"""What the lab's picture shows (pure): each device with its shape (from its kind) and its colour
(its part in a change: targeted, pushed, post-checks passed or failed), and each link with the
interface names at both ends, its subnet and, after post-checks, whether its sessions are up."""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, get_args

from netutils.interface import abbreviated_interface_name

from bot import messages
from workflow.api import LabLayout
from workflow.model import Link, StandardResponse
from workflow.postchecks.routing_sessions import SessionState, session_states

Role = Literal["target", "other", "pushed", "passed", "failed", "postcheck_failed"]
LinkState = Literal["unchecked", "up", "down"]
Shape = Literal["router", "switch", "host", "other"]
SHAPE_NAMES: tuple[Shape, ...] = get_args(Shape)
SHAPES: dict[str, Shape] = {"router": "router", "switch": "switch", "host": "host"}
SHORT_NAME = 8  # characters: an interface name this long is drawn as it is (eth0, swp12, ens3)
MAX_DEVICES = 300  # drawn per picture; a bigger lab is refused (the caller says so)


@dataclass(frozen=True)
class SceneLink:
    a: str
    b: str
    a_interface: str  # as engineers write it short (Gi0/1, eth0)
    b_interface: str
    subnet: str  # "10.0.12.0/30"; both when the ends' differ ("10.0.23.0/30 != …"); "" unknown
    state: LinkState = "unchecked"


@dataclass(frozen=True)
class Scene:
    devices: tuple[str, ...]
    links: tuple[SceneLink, ...]
    shapes: Mapping[str, Shape] = field(default_factory=dict)  # absent: "other"
    roles: Mapping[str, Role] = field(default_factory=dict)  # absent: "other"


def scene_of(
    lab: LabLayout,
    roles: Mapping[str, Role] | None = None,
    result: StandardResponse | None = None,
    running: Sequence[SessionState] = (),
) -> Scene:
    """The lab, its devices coloured by `roles` or else by `result` (a push, with its
    post-checks when they ran), its links by the sessions `result`'s post-checks read and the
    sessions `running` now (the `topology` command's)."""
    known = set(lab.devices)
    sessions = [*_sessions(result), *running]
    links = tuple(
        SceneLink(
            link["a_device"],
            link["b_device"],
            short_interface(link["a_interface"]),
            short_interface(link["b_interface"]),
            link_subnet(link, lab.addresses),
            link_state(link, sessions),
        )
        for link in lab.links
        if link["a_device"] in known and link["b_device"] in known
    )
    shapes = {name: SHAPES.get(lab.kinds.get(name, ""), "other") for name in lab.devices}
    chosen = roles if roles is not None else result_roles(result) if result else {}
    return Scene(tuple(sorted(lab.devices)), links, shapes, dict(chosen))


def short_interface(name: str) -> str:
    """A vendor's long name as engineers write it (GigabitEthernet0/1 -> Gi0/1); a short one
    as it is (netutils would read Linux's eth0 as Ethernet0)."""
    return name if len(name) <= SHORT_NAME else abbreviated_interface_name(name)


def result_roles(result: StandardResponse) -> dict[str, Role]:
    """Each device of a push: failed, post-check failed, post-checks passed, or pushed (and
    not checked: no post-checks, a simulator, no parser for its platform)."""
    roles: dict[str, Role] = {}
    for item in result["data"]:
        checked = item["checks"]["kind"] if "checks" in item else None
        if checked == "failed":
            roles[item["name"]] = "postcheck_failed"
        elif item["status"] != "success":
            roles[item["name"]] = "failed"
        else:
            roles[item["name"]] = "passed" if checked == "passed" else "pushed"
    return roles


def link_subnet(link: Link, addresses: Mapping[str, Mapping[str, str]]) -> str:
    """The link's subnet from its ends' addresses (either end's, both when they differ)."""
    networks = []
    for device, interface in ((link["a_device"], link["a_interface"]),
                              (link["b_device"], link["b_interface"])):  # fmt: skip
        address = addresses.get(device, {}).get(interface)
        if address:
            network = str(ipaddress.ip_interface(address).network)
            if network not in networks:
                networks.append(network)
    if len(networks) == 2:
        return messages.PICTURE_SUBNETS_DIFFER.format(a=networks[0], b=networks[1])
    return networks[0] if networks else ""


def link_state(link: Link, sessions: Sequence[SessionState]) -> LinkState:
    """Down when a session over it is not up, up when all checked are, else unchecked. OSPF is
    over the link whose far end is the neighbour's interface; BGP over the links to the peer."""
    over = [s for s in sessions if _over(link, s)]
    if not over:
        return "unchecked"
    return "up" if all(s.up for s in over) else "down"


def _over(link: Link, session: SessionState) -> bool:
    ends = {(link["a_device"], link["b_device"], link["b_interface"]),
            (link["b_device"], link["a_device"], link["a_interface"])}  # fmt: skip
    if session.protocol == "ospf":
        return (session.device, session.peer, session.peer_interface) in ends
    return any(session.device == me and session.peer == peer for me, peer, _ in ends)


def _sessions(result: StandardResponse | None) -> list[SessionState]:
    if result is None:
        return []
    return [
        state
        for item in result["data"]
        if "checks" in item
        for state in session_states(item["name"], item["checks"])
    ]
