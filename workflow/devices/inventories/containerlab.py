"""Devices and links of a deployed containerlab lab (`LABBOT_INVENTORY=clab-NAME/` or its
`*.clab.yml` topology file).

containerlab writes, for every deployed lab, a directory `clab-NAME/` beside the topology file
holding `topology-data.json` (its export template `core/export_templates/auto.tmpl`: `nodes`
by name with `kind`, `image`, `mgmt-ipv4-address`; `links` with `endpoints.a` / `endpoints.z`,
each a `node` and an `interface`) and `nornir-simple-inventory.yml` (its template
`core/assets/inventory_nornir_simple.go.tpl`: per node `username`, `password`, `platform`,
`hostname`). Nodes and links come from the first, logins from the second; LABBOT_DEVICE_* fill
what it leaves empty.

Kind -> platform and each kind's default login: base.containerlab_kinds; a kind labbot cannot
drive is listed unusable with the reason. Logins: the inventory file's, else the kind's default,
else LABBOT_DEVICE_*.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from base.containerlab_kinds import KIND_LOGINS, node_platform
from base.errors import InventoryError
from workflow.model import Device, Link, UnusableNode
from workflow.results.targets import infer_kind

__all__ = ["TOPOLOGY_DATA", "ContainerlabInventory", "lab_directory"]

TOPOLOGY_DATA = "topology-data.json"
NORNIR_INVENTORY = "nornir-simple-inventory.yml"


def lab_directory(path: Path) -> Path | None:
    """The `clab-NAME/` directory `path` names (itself, or the one a `*.clab.yml` topology
    file's `name` gives beside it); None when `path` is neither."""
    if path.is_dir():
        return path
    if path.name.endswith((".clab.yml", ".clab.yaml")):
        try:
            name = (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).get("name")
        except (OSError, yaml.YAMLError, AttributeError) as exc:
            raise InventoryError(f"{path}: not a readable containerlab topology ({exc})") from exc
        if not name:
            raise InventoryError(f"{path}: a containerlab topology needs its `name`")
        return path.parent / f"clab-{name}"
    return None


class ContainerlabInventory:
    """`workflow.ports.Inventory` over a deployed containerlab lab directory."""

    def __init__(self, directory: Path) -> None:
        self._directory = directory
        self.lab = f"containerlab {directory.resolve()}"

    async def load(self) -> tuple[list[Device], list[Link], list[UnusableNode]]:
        data, logins = await asyncio.to_thread(self._read)
        devices: list[Device] = []
        unusable: list[UnusableNode] = []
        for name, node in (data.get("nodes") or {}).items():
            platform, reason = node_platform(node)
            if platform is None:
                unusable.append(UnusableNode(name, reason))
                continue
            devices.append(self._device(name, node, platform, logins.get(name) or {}))
        known = {device.name for device in devices}
        links = [link for link in _links(data) if {link["a_device"], link["b_device"]} <= known]
        return devices, links, unusable

    def _read(self) -> tuple[dict[str, Any], dict[str, Any]]:
        data_path = self._directory / TOPOLOGY_DATA
        if not data_path.is_file():
            raise InventoryError(
                f"LABBOT_INVENTORY: {self._directory} has no {TOPOLOGY_DATA}; is the lab "
                "deployed (`containerlab deploy`)?"
            )
        try:
            data = json.loads(data_path.read_text(encoding="utf-8"))
            inventory_path = self._directory / NORNIR_INVENTORY
            logins: Any = {}
            if inventory_path.is_file():
                logins = yaml.safe_load(inventory_path.read_text(encoding="utf-8")) or {}
        except (OSError, ValueError, yaml.YAMLError) as exc:
            raise InventoryError(f"{self._directory}: unreadable lab files ({exc})") from exc
        if not isinstance(data, dict) or not isinstance(logins, dict):
            raise InventoryError(f"{self._directory}: {TOPOLOGY_DATA} is not containerlab's")
        return data, logins

    def _device(
        self, name: str, node: Mapping[str, Any], platform: str, login: Mapping[str, Any]
    ) -> Device:
        address = str(node.get("mgmt-ipv4-address") or login.get("hostname") or "")
        if not address:
            raise InventoryError(f"{self._directory}: node {name} has no management address")
        kind, source, detail = infer_kind(groups=(str(node.get("group") or ""),))
        username, password = KIND_LOGINS.get(str(node.get("kind", "")), (None, None))
        return Device(
            name=name,
            platform=platform,
            host=address,
            port=22,
            username=str(login["username"]) if login.get("username") else username,
            password=str(login["password"]) if login.get("password") else password,
            kind=kind,
            kind_source=source,
            kind_detail=detail,
        )


def _links(data: Mapping[str, Any]) -> list[Link]:
    links = []
    for entry in data.get("links") or ():
        ends = entry.get("endpoints") or {}
        a, z = ends.get("a") or {}, ends.get("z")
        if not z:  # a link to a host interface or a dummy: one end only
            continue
        links.append(
            Link(
                a_device=str(a.get("node")),
                a_interface=str(a.get("interface")),
                b_device=str(z.get("node")),
                b_interface=str(z.get("interface")),
            )
        )
    return links
