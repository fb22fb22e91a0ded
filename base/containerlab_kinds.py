"""containerlab's node kinds: the platform labbot drives each with, and the login a kind's
nodes get when the topology names none (containerlab's `defaultCredentials`).

Read by the lab source (workflow.devices.inventories.containerlab) and by frrlab, which runs a
topology's
FRR nodes and gives them the same login.

Kind -> platform: frr/frrouting -> frr (containerlab's `nodes/frr/frr.go`: an `admin` user,
password `admin` unless the topology says otherwise, whose login shell is vtysh), ceos ->
arista_eos, crpd -> juniper_junos, srl -> nokia_srl (netmiko's), all over SSH to the management
address. A `linux` node of an FRR image (containerlab's older FRR examples) is driven as `frr`
too; any other linux node is a host, and a kind labbot cannot drive is unusable with the reason.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["FRR", "KIND_LOGINS", "node_platform"]

FRR = "frr"
KIND_PLATFORMS: Mapping[str, str] = {
    "frr": FRR,
    "frrouting": FRR,
    "ceos": "arista_eos",
    "arista_ceos": "arista_eos",
    "crpd": "juniper_junos",
    "juniper_crpd": "juniper_junos",
    "srl": "nokia_srl",
    "nokia_srlinux": "nokia_srl",
}
KIND_LOGINS: Mapping[str, tuple[str, str]] = {
    "frr": ("admin", "admin"),
    "frrouting": ("admin", "admin"),
}
FRR_IMAGE_WORD = "frr"  # quay.io/frrouting/frr, frrouting/frr: an image that runs FRR
HOST_REASON = "a Linux host (kind linux), not a network device"


def node_platform(node: Mapping[str, Any]) -> tuple[str | None, str]:
    """The platform labbot drives a node with, or None and the reason it cannot."""
    kind = str(node.get("kind", ""))
    if kind in KIND_PLATFORMS:
        return KIND_PLATFORMS[kind], ""
    if kind == "linux":
        frr = FRR_IMAGE_WORD in str(node.get("image", "")).lower()
        return (FRR, "") if frr else (None, HOST_REASON)
    return None, f"labbot cannot drive containerlab kind {kind!r}"
