"""A deployed containerlab lab directory (`clab-NAME/`) written for a running FRR lab, field by
field as containerlab writes one (see tests/workflow/devices/fixtures/clab-frr01/FIELDS.md for
where each field comes from): its routers as nodes of kind `frr` at their management addresses,
its links with both ends, and a Linux host that is not a router."""

from __future__ import annotations

import ipaddress
import json
from pathlib import Path
from typing import Any

from frrlab import FrrLab

PREFIX = "clab"
HOST = "PC1"
HOST_IMAGE = "wbitt/network-multitool:3.22.2"
FRR_IMAGE = "quay.io/frrouting/frr:10.5.1"
KIND_LOGIN = ("admin", "admin")  # what the inventory generator writes for kind frr


def write_deployed_lab(lab: FrrLab, folder: Path, name: str) -> Path:
    """Write `folder/clab-NAME/` for `lab` (started with management=True) and return it; the
    host gets the block's last address (nothing answers there)."""
    directory = folder / f"{PREFIX}-{name}"
    directory.mkdir()
    addresses = {router: lab.ssh_ports[router].host for router in lab.routers}
    block = ipaddress.ip_network(f"{next(iter(addresses.values()))}/24", strict=False)
    addresses[HOST] = str(block[-2])
    nodes = {
        node: _node(name, directory, node, index, address, block)
        for index, (node, address) in enumerate(addresses.items())
    }
    data = {
        "name": name,
        "type": PREFIX,
        "clab": {"config": {"prefix": PREFIX, "mgmt": _mgmt(block)}},
        "ssh-pub-keys": [],
        "nodes": nodes,
        "links": [_link(index, link.a, link.b) for index, link in enumerate(lab.topology.links)],
    }
    (directory / "topology-data.json").write_text(json.dumps(data, indent=2) + "\n")
    (directory / "nornir-simple-inventory.yml").write_text(_nornir_inventory(nodes))
    return directory


def _mgmt(block: ipaddress.IPv4Network) -> dict[str, Any]:
    return {
        "network": PREFIX,
        "bridge": "br-5a4f0c3e9b1d",
        "ipv4-subnet": str(block),
        "ipv4-gw": str(block[1]),
        "ipv6-subnet": "3fff:172:20:20::/64",
        "ipv6-gw": "3fff:172:20:20::1",
        "mtu": 1500,
        "external-access": True,
    }


def _node(
    lab: str, directory: Path, node: str, index: int, address: str, block: ipaddress.IPv4Network
) -> dict[str, Any]:
    host = node == HOST
    kind, group = ("linux", "hosts") if host else ("frr", "routers")
    labdir = str(directory / node)
    return {
        "index": str(index),
        "shortname": node,
        "longname": f"{PREFIX}-{lab}-{node}",
        "fqdn": f"{node}.{lab}.io",
        "group": group,
        "labdir": labdir,
        "kind": kind,
        "image": HOST_IMAGE if host else FRR_IMAGE,
        "mgmt-net": "",
        "mgmt-intf": "",
        "mgmt-ipv4-address": address,
        "mgmt-ipv4-prefix-length": block.prefixlen,
        "mgmt-ipv6-address": f"3fff:172:20:20::{index + 2:x}",
        "mgmt-ipv6-prefix-length": 64,
        "mac-address": f"aa:c1:ab:6f:2b:{index + 1:02x}",
        "labels": {
            "clab-mgmt-net-bridge": "br-5a4f0c3e9b1d",
            "clab-node-group": group,
            "clab-node-kind": kind,
            "clab-node-lab-dir": labdir,
            "clab-node-name": node,
            "clab-node-type": "",
            "clab-topo-file": str(directory.parent / f"{lab}.clab.yml"),
            "containerlab": lab,
        },
        "port-bindings": [],
    }


def _link(index: int, a: tuple[str, str], z: tuple[str, str]) -> dict[str, Any]:
    ends = {}
    for end, (node, interface), peer in (("a", a, "z"), ("z", z, "a")):
        mac = f"aa:c1:ab:00:{index + 1:02x}:{0 if end == 'a' else 1:02x}"
        ends[end] = {"node": node, "interface": interface, "mac": mac, "peer": peer}
    return {"endpoints": ends}


def _nornir_inventory(nodes: dict[str, dict[str, Any]]) -> str:
    """containerlab's inventory_nornir_simple.go.tpl: kinds in sorted order, nodes sorted by
    short name, each with the kind's login (none for linux), platform = kind, hostname."""
    lines = ["---"]
    for kind in sorted({node["kind"] for node in nodes.values()}):
        for name in sorted(n for n, node in nodes.items() if node["kind"] == kind):
            username, password = KIND_LOGIN if kind == "frr" else ("", "")
            lines += [
                f"{name}:",
                f"    username: {username}",
                f"    password: {password}",
                f"    platform: {kind}",
                f"    hostname: {nodes[name]['mgmt-ipv4-address']}",
            ]
    return "\n".join(lines) + "\n"
