"""containerlab topology files (`*.clab.yml`) as FRR labs: their FRR nodes run as frrlab routers.

A node is a router when its kind is `frr`, or `linux` with an FRR image (the way containerlab's
own FRR examples run FRR); its `startup-config` (an frr.conf, relative to the topology file) is
loaded into the router once its daemons run. Interface names come from the links' brief
`endpoints: ["r1:eth1", "r2:eth1"]`. Other nodes are hosts: not run, listed with the reason.
Node settings inherit from `topology.kinds.<kind>` and `topology.defaults`, as in containerlab.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from base.containerlab_kinds import FRR, node_platform
from frrlab.topology import LOOPBACK, frr_topology_from_dict
from labsim.topology import Topology, TopologyError

SUFFIXES = (".clab.yml", ".clab.yaml")
# `interface eth1` then ` ip address 10.0.12.1/30` in an frr.conf
_INTERFACE = re.compile(r"^interface (\S+)", re.MULTILINE)
_ADDRESS = re.compile(r"^\s+ip address (\S+/\d+)\s*$", re.MULTILINE)


@dataclass(frozen=True)
class ClabLab:
    """The routers to run, each router's startup configuration, and the nodes not run (why)."""

    topology: Topology
    startup_configs: Mapping[str, str] = field(default_factory=dict)
    not_run: Mapping[str, str] = field(default_factory=dict)


def is_clab_file(path: str | Path) -> bool:
    return str(path).endswith(SUFFIXES)


def load_clab_topology(path: str | Path) -> ClabLab:
    """Read a containerlab topology file; any problem raises TopologyError naming the file."""
    path = Path(path)
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
        return _clab_lab(raw, path.parent)
    except OSError as err:
        raise TopologyError(f"cannot read {path}: {err.strerror} ({err.filename})") from err
    except yaml.YAMLError as err:
        problem = str(err).splitlines()[0]
        raise TopologyError(f"containerlab topology {path} is not valid YAML: {problem}") from err
    except (ValueError, TypeError) as err:
        raise TopologyError(f"containerlab topology {path}: {err}") from err


def _clab_lab(raw: object, folder: Path) -> ClabLab:
    if not isinstance(raw, Mapping) or not isinstance(raw.get("topology"), Mapping):
        raise ValueError("expected a mapping with `name` and a `topology` mapping")
    topology = raw["topology"]
    if not isinstance(topology.get("nodes"), Mapping) or not topology["nodes"]:
        raise ValueError("`topology.nodes` must map node names to nodes")
    nodes = {str(name): _node(name, node, topology) for name, node in topology["nodes"].items()}
    routers, not_run = {}, {}
    for name, node in nodes.items():
        platform, reason = node_platform(node)
        if platform == FRR:
            routers[name] = node
        else:
            not_run[name] = reason or f"kind {node.get('kind')!r} is not an FRR router"
    links = [_link(entry, nodes) for entry in topology.get("links") or ()]
    links = [ends for ends in links if all(end.partition(":")[0] in routers for end in ends)]
    configs = {name: _startup_config(node, folder) for name, node in routers.items()}
    frr = {
        "routers": {
            name: {"interfaces": _interfaces(name, links, configs[name])} for name in routers
        },
        "links": links,
    }
    return ClabLab(frr_topology_from_dict(frr), configs, not_run)


def _node(name: object, node: object, topology: Mapping[str, Any]) -> dict[str, Any]:
    """The node's settings over its kind's and the defaults."""
    if not isinstance(node, Mapping | None):
        raise ValueError(f"node {name}: expected a mapping, got {node!r}")
    defaults, own = topology.get("defaults") or {}, node or {}
    kind = own.get("kind", defaults.get("kind"))
    return {**defaults, **((topology.get("kinds") or {}).get(kind) or {}), **own}


def _link(entry: object, nodes: Mapping[str, Any]) -> list[str]:
    ends = entry.get("endpoints") if isinstance(entry, Mapping) else None
    if not (isinstance(ends, list) and len(ends) == 2 and all(isinstance(e, str) for e in ends)):
        raise ValueError(f"link {entry!r}: expected endpoints: [NODE:INTERFACE, NODE:INTERFACE]")
    for end in ends:
        node, sep, interface = end.partition(":")
        if not sep or not interface:
            raise ValueError(f"link endpoint {end!r}: expected NODE:INTERFACE")
        if node not in nodes:
            raise ValueError(f"link endpoint {end!r}: no node {node!r} in topology.nodes")
    return ends


def _startup_config(node: Mapping[str, Any], folder: Path) -> str:
    relative = node.get("startup-config")
    if not relative:
        return ""
    return (folder / str(relative)).read_text(encoding="utf-8")


def _interfaces(router: str, links: list[list[str]], config: str) -> dict[str, dict[str, str]]:
    """The router's link ends and loopback, with the addresses its startup config gives them."""
    names = [LOOPBACK] + [
        end.partition(":")[2] for ends in links for end in ends if end.partition(":")[0] == router
    ]
    addresses = _config_addresses(config)
    return {name: {"address": addresses[name]} if name in addresses else {} for name in names}


def _config_addresses(config: str) -> dict[str, str]:
    """The first IPv4 address of each `interface` block of an frr.conf."""
    addresses: dict[str, str] = {}
    blocks = _INTERFACE.split(config)[1:]
    for name, body in zip(blocks[::2], blocks[1::2], strict=True):
        found = _ADDRESS.search(body.split("\nexit", 1)[0])
        if found and ":" not in found.group(1):
            addresses.setdefault(name, found.group(1))
    return addresses
