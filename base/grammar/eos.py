"""Arista EOS configuration modes, from Arista's EOS user manual (the facts Batfish's open-source
Arista grammar also models): IOS's modes where EOS shares them, with EOS's own commands.

Where EOS differs from IOS in a way that moves a line: `ip igmp snooping …`, `ip dhcp relay
always-on` and `ip ftp client source-interface …` are global on EOS, whatever mode they are
typed in; an interface takes `vrf NAME` (not `vrf forwarding`); a routing process is
`router ospf` or `router bgp`, each a mode of its own.
"""

from __future__ import annotations

from base.grammar import ios
from base.grammar.commands import command_tree
from base.grammar.model import Grammar, mode

__all__ = ["GRAMMAR"]

GLOBAL_COMMANDS = (
    *ios.GLOBAL_COMMANDS,
    *ios.GLOBAL_IP,
    "management|transceiver|daemon|queue-monitor|dns|agent|event-handler|schedule|zerotouch",
    "tap|mlag|hardware|ptp|sflow|vlan-translation|peer-filter|ip|ipv6|mac|action|hostname",
)
# IOS's interface commands, but for `ip dhcp …` (EOS relays per interface by `ip
# helper-address`; `ip dhcp relay always-on` and `… information option` are global) and `vrf
# forwarding`.
_NOT_EOS = frozenset(
    {"ip dhcp relay information trusted|check|policy", "ip dhcp client", "vrf forwarding"}
)
INTERFACE = (
    *(spec for spec in ios.INTERFACE if spec not in _NOT_EOS),
    "flowcontrol|error-correction|traffic-loopback|phy|link-debounce",
    # first words global configuration has too (`vrf instance X`, `mlag configuration`, `sflow
    # destination`, `ip virtual-router mac-address`): what the interface takes, word by word
    "vrf <any> $",
    "mlag <n> $",
    "sflow enable|sample",
    "bfd interval|echo|per-link|neighbor|authentication",
    "ip virtual-router address",
    "ip attached-host",
    "ip dhcp relay all-subnets",
    "ip dhcp relay information option circuit-id",
)
_ROUTER = (*ios.ROUTER, "max-lsa|graceful-restart|bfd|update|ucmp|maximum-routes")
ROUTER_AF = (*ios.ROUTER_AF, "neighbor|bgp|graceful-restart")
VLAN = (*ios.VLAN, "trunk")
ACCESS_LIST = (*ios.ACCESS_LIST, "statistics|counters")
MANAGEMENT = (*ios.EVERY_MODE, "shutdown|protocol|vrf|idle-timeout|authentication|cors")


MODES = (
    mode("if", r"^interface (range )?\S", "config-if", INTERFACE),
    mode("router-ospf", r"^router ospf\b", "config-router-ospf", _ROUTER),
    mode("router-bgp", r"^router bgp\b", "config-router-bgp", _ROUTER),
    mode("router-af", r"^address-family ", "config-router-bgp-af", ROUTER_AF, parent="router-bgp"),
    mode("vlan", r"^vlan [\d,-]+$", "config-vlan", VLAN),
    mode("acl", r"^(ip|ipv6|mac) access-list \S", "config-acl", ACCESS_LIST),
    mode("route-map", r"^route-map ", "config-route-map", ios.ROUTE_MAP),
    mode("mgmt", r"^management (api|ssh|telnet)", "config-mgmt", MANAGEMENT),
    *ios.KEYS_AND_QOS,
)

GRAMMAR = Grammar(
    name="arista_eos",
    global_commands=command_tree(GLOBAL_COMMANDS),
    modes=MODES,
    interface_names=("Ethernet", "Loopback", "Management", "Vlan", "Port-Channel"),
)
