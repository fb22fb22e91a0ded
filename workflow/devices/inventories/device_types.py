"""Which netmiko device_type a lab node speaks, or why labbot will not touch it.

Upstream GNS3 nodes carry no vendor field, so the answer comes, in order, from:
1. the operator's `LABBOT_DEVICE_TYPES` rules (node-name glob -> device_type), which always win;
2. `device_type:<type>` node tags, on servers that have tags (the gns3-copilot fork);
3. heuristics over node_type, template name, image and symbol.
A node none of these can tell is reported as unusable with the reason, never guessed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase

from netmiko.ssh_dispatcher import platforms as NETMIKO_PLATFORMS

from workflow.model import UnusableNode

__all__ = ["netmiko_type"]

TAG_PREFIX = "device_type:"

# labbot platforms that netmiko drives with another device type: FRR's integrated vtysh speaks
# the IOS dialect (prompts, `configure terminal`, `end`), its replies are FRR's own.
DRIVERS: Mapping[str, str] = {"frr": "cisco_ios", "frr_telnet": "cisco_ios_telnet"}
RULES_SETTING = "LABBOT_DEVICE_TYPES"

# Node types that are hosts, clouds or built-in switches: no configuration CLI to drive.
NOT_CONFIGURABLE: Mapping[str, str] = {
    "vpcs": "a VPCS host has no configuration CLI",
    "traceng": "a TraceNG host has no configuration CLI",
    "cloud": "a cloud is a link to the host network, not a device",
    "nat": "a NAT node is a link to the host network, not a device",
    "ethernet_switch": "the GNS3 built-in Ethernet switch has no CLI",
    "ethernet_hub": "the GNS3 built-in Ethernet hub has no CLI",
    "frame_relay_switch": "the GNS3 built-in Frame Relay switch has no CLI",
    "atm_switch": "the GNS3 built-in ATM switch has no CLI",
}

# Node types whose images are always Cisco IOS.
CISCO_NODE_TYPES = frozenset({"dynamips", "iou"})

# Substrings of template name / image / symbol (lower case) -> vendor family. First match wins,
# so the more specific names come first ("nxosv" before "iosv").
KEYWORD_FAMILIES: Sequence[tuple[str, str]] = (
    ("frrouting", "frr"),
    ("frr", "frr"),
    ("nxos", "cisco_nxos"),
    ("nx-os", "cisco_nxos"),
    ("xrv", "cisco_xr"),
    ("ios-xr", "cisco_xr"),
    ("csr1000v", "cisco_xe"),
    ("cat8000v", "cisco_xe"),
    ("c8000v", "cisco_xe"),
    ("veos", "arista_eos"),
    ("ceos", "arista_eos"),
    ("arista", "arista_eos"),
    ("vsrx", "juniper_junos"),
    ("vmx", "juniper_junos"),
    ("junos", "juniper_junos"),
    ("vios", "cisco_ios"),
    ("iosv", "cisco_ios"),
    ("i86bi", "cisco_ios"),
    ("c7200", "cisco_ios"),
    ("c3745", "cisco_ios"),
    ("c3725", "cisco_ios"),
    ("c3600", "cisco_ios"),
    ("c2691", "cisco_ios"),
    ("c2600", "cisco_ios"),
    ("c1700", "cisco_ios"),
)


@dataclass(frozen=True)
class NodeInfo:
    """What an inventory knows about a node, as far as telling its device type goes."""

    name: str
    node_type: str = ""
    console_type: str = "telnet"
    template: str = ""
    image: str = ""
    symbol: str = ""
    tags: tuple[str, ...] = ()


def resolve_device_type(node: NodeInfo, rules: Mapping[str, str]) -> str | UnusableNode:
    """The netmiko device_type for `node`, or an UnusableNode saying why there is none."""
    for glob, device_type in rules.items():
        if fnmatchcase(node.name, glob):
            return _checked(node, device_type, f"{RULES_SETTING} rule {glob}={device_type}")
    for tag in node.tags:
        if tag.startswith(TAG_PREFIX):
            device_type = tag.removeprefix(TAG_PREFIX).strip()
            return _checked(node, device_type, f"node tag {tag!r}")
    if node.node_type in NOT_CONFIGURABLE:
        return UnusableNode(node.name, NOT_CONFIGURABLE[node.node_type])
    family = _guess_family(node)
    if family is None:
        return UnusableNode(
            node.name,
            f"cannot tell its device type from node type {node.node_type or '?'!r}, "
            f"template {node.template or '?'!r}; add a {RULES_SETTING} rule such as "
            f"{node.name}=cisco_ios_telnet",
        )
    return _with_console(node, family)


def netmiko_type(platform: str) -> str:
    """The netmiko device_type that drives a labbot platform (`frr_telnet` -> cisco_ios_telnet)."""
    return DRIVERS.get(platform, platform)


def _checked(node: NodeInfo, device_type: str, source: str) -> str | UnusableNode:
    if netmiko_type(device_type) not in NETMIKO_PLATFORMS:
        return UnusableNode(node.name, f"{source}: {device_type!r} is not a netmiko device type")
    return device_type


def _guess_family(node: NodeInfo) -> str | None:
    haystack = " ".join((node.template, node.image, node.symbol)).lower()
    for keyword, family in KEYWORD_FAMILIES:
        if keyword in haystack:
            return family
    if node.node_type in CISCO_NODE_TYPES:
        return "cisco_ios"
    return None


def _with_console(node: NodeInfo, family: str) -> str | UnusableNode:
    """A GNS3 console is telnet without login: the `_telnet` flavour of the family."""
    if node.console_type != "telnet":
        return UnusableNode(
            node.name,
            f"looks like {family} but its console is {node.console_type or 'none'!r}; "
            "labbot needs a telnet console (set console_type to telnet in GNS3)",
        )
    device_type = f"{family}_telnet"
    if netmiko_type(device_type) not in NETMIKO_PLATFORMS:
        return UnusableNode(node.name, f"netmiko has no telnet driver for {family}")
    return device_type
