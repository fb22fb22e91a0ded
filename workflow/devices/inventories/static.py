"""Devices from a Nornir SimpleInventory hosts file (`LABBOT_INVENTORY`).

The file is read by Nornir's own SimpleInventory plugin, so `groups.yaml` and `defaults.yaml`
beside it work as Nornir users expect: a host's `username`, `password` and
`connection_options.netmiko.extras.secret` come from the host, else its groups, else the
defaults (Nornir's own resolution); labbot's LABBOT_DEVICE_* settings fill what they leave empty.

Links are optional, per host under `data.links`, or as `data.interfaces.<name>.peer:
"R2:Ethernet0/0"` (the form `labbot lab` writes):
    R1:
      hostname: 127.0.0.1
      port: 2001
      platform: cisco_ios_telnet
      data:
        links: [{interface: Ethernet0/0, peer: R2, peer_interface: Ethernet0/0}]
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from nornir.core.inventory import Host
from nornir.core.inventory import Inventory as NornirInventory
from nornir.plugins.inventory.simple import SimpleInventory
from nornir_netmiko.connections.netmiko import napalm_to_netmiko_map

from base.errors import InventoryError
from workflow.devices.inventories.device_types import TAG_PREFIX, NodeInfo, resolve_device_type
from workflow.devices.inventories.hosts_file import host_lines
from workflow.model import Device, Link, UnusableNode
from workflow.results.targets import infer_kind

__all__ = ["StaticInventory"]

LINK_KEYS = ("interface", "peer", "peer_interface")
GROUPS, DEFAULTS = "groups.yaml", "defaults.yaml"  # beside the hosts file, as Nornir reads them
Loaded = tuple[list[Device], list[Link], list[UnusableNode]]


class StaticInventory:
    """`workflow.ports.Inventory` over a SimpleInventory hosts YAML file."""

    def __init__(
        self,
        path: Path | str,
        device_types: Mapping[str, str] | None = None,
        lab: str = "",
    ) -> None:
        self._path = Path(path)
        self.lab = lab or f"inventory {self._path.resolve()}"
        self._rules = dict(device_types or {})
        self._lines: dict[str, int] = {}  # each host's line in the file, for what is said of it
        self._loaded: tuple[tuple[bytes | None, ...], Loaded] | None = None

    async def load(self) -> Loaded:
        """The devices, links and unusable hosts; parsed again only when a file's bytes changed
        (every push, read and check loads the inventory; 1,000 hosts take seconds to parse)."""
        devices, links, unusable = await asyncio.to_thread(self._load_files)
        return list(devices), [Link(**link) for link in links], list(unusable)

    def _load_files(self) -> Loaded:
        folder = self._path.parent
        contents = tuple(_bytes(path) for path in (self._path, folder / GROUPS, folder / DEFAULTS))
        if self._loaded is None or self._loaded[0] != contents:
            self._loaded = (contents, self._parse(self.read()))
        return self._loaded[1]

    def _parse(self, inventory: NornirInventory) -> Loaded:
        devices: list[Device] = []
        unusable: list[UnusableNode] = []
        links: dict[frozenset[tuple[str, str]], Link] = {}
        for name, host in inventory.hosts.items():
            resolved = self.device_type(name, host)
            if isinstance(resolved, UnusableNode):
                unusable.append(resolved)
                continue
            devices.append(self._device(name, host, resolved))
            for link in self._links(name, host):
                # each link is usually listed from both ends; keep it once
                a_device, a_interface, b_device, b_interface = link
                links.setdefault(
                    frozenset({link[:2], link[2:]}),
                    Link(
                        a_device=a_device,
                        a_interface=a_interface,
                        b_device=b_device,
                        b_interface=b_interface,
                    ),
                )
        return devices, list(links.values()), unusable

    def read(self) -> NornirInventory:
        """The hosts as Nornir resolves them (groups, defaults); InventoryError in one line."""
        self._lines = host_lines(self._path)
        folder = self._path.parent
        try:
            return SimpleInventory(
                host_file=str(self._path),
                group_file=str(folder / GROUPS),
                defaults_file=str(folder / DEFAULTS),
            ).load()
        except Exception as exc:  # ruamel, KeyError for unknown groups, TypeError for bad shapes
            raise InventoryError(
                f"{self._path}: not a valid Nornir SimpleInventory hosts file "
                f"({type(exc).__name__}: {exc})"
            ) from exc

    def device_type(self, name: str, host: Host) -> str | UnusableNode:
        """The netmiko device type of a host read by `read`, or why there is none."""
        platform = host.platform
        tags = () if not platform else (TAG_PREFIX + napalm_to_netmiko_map.get(platform, platform),)
        resolved = resolve_device_type(NodeInfo(name=name, tags=tags), self._rules)
        if isinstance(resolved, UnusableNode) and not platform:
            return UnusableNode(
                name,
                f"{self.where(name)}: host {name} has no platform; add `platform: cisco_ios_telnet`"
                " (or a LABBOT_DEVICE_TYPES rule)",
            )
        return resolved

    def where(self, name: str) -> str:
        """The file, and the host's line in it once read."""
        line = self._lines.get(name)
        return f"{self._path} line {line}" if line else str(self._path)

    def _device(self, name: str, host: Host, platform: str) -> Device:
        if not host.hostname:
            raise InventoryError(f"{self.where(name)}: host {name} has no hostname")
        port = host.port or (23 if platform.endswith("_telnet") else 22)
        options = host.get_connection_parameters("netmiko")
        secret = (options.extras or {}).get("secret")
        declared = str(host.data.get("kind") or host.data.get("role") or "")
        kind, source, detail = infer_kind(declared, tuple(group.name for group in host.groups))
        return Device(
            name=name,
            platform=platform,
            host=host.hostname,
            port=int(port),
            username=host.username or None,
            password=host.password or None,
            secret=str(secret) if secret else None,
            kind=kind,
            kind_source=source,
            kind_detail=detail,
            simulator=str(host.data.get("simulator") or ""),
        )

    def _links(self, name: str, host: Host) -> list[tuple[str, str, str, str]]:
        return self._listed_links(name, host) + self._interface_peers(name, host)

    def _interface_peers(self, name: str, host: Host) -> list[tuple[str, str, str, str]]:
        """`data.interfaces.<if>.peer: "R2:Gi0/0"`, as `labbot lab` writes its inventory."""
        interfaces: Any = host.data.get("interfaces") or {}
        if not isinstance(interfaces, dict):
            raise InventoryError(f"{self._path}: host {name}: data.interfaces must be a mapping")
        links = []
        for interface, facts in interfaces.items():
            peer = facts.get("peer") if isinstance(facts, dict) else None
            if peer:
                peer_device, sep, peer_interface = str(peer).partition(":")
                if not sep:
                    raise InventoryError(
                        f"{self._path}: host {name}: peer {peer!r} of {interface} is not "
                        "DEVICE:INTERFACE"
                    )
                links.append((name, str(interface), peer_device, peer_interface))
        return links

    def _listed_links(self, name: str, host: Host) -> list[tuple[str, str, str, str]]:
        entries: Any = host.data.get("links") or []
        if not isinstance(entries, list) or not all(
            isinstance(entry, dict) and all(key in entry for key in LINK_KEYS) for entry in entries
        ):
            raise InventoryError(
                f"{self._path}: host {name}: data.links must be a list of "
                "{interface, peer, peer_interface}"
            )
        return [
            (name, str(e["interface"]), str(e["peer"]), str(e["peer_interface"])) for e in entries
        ]


def _bytes(path: Path) -> bytes | None:
    """The file's bytes; None when it cannot be read (`read` then says why, if it matters)."""
    try:
        return path.read_bytes()
    except OSError:
        return None
