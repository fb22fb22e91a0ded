"""Huawei VRP configuration views, from Huawei's VRP command references: the views a template
may write into and the commands each accepts, closed world like the IOS model (a command its
view does not accept runs in the system view, or is refused). VRP negates with `undo`.
"""

from __future__ import annotations

from base.grammar.commands import command_tree
from base.grammar.model import Grammar, mode

EVERY_VIEW = ("quit", "return")
SYSTEM_VIEW = (
    *EVERY_VIEW,
    "sysname|interface|vlan|ospf|bgp|isis|rip|acl|route-policy|ip|ipv6|dns|ntp-service",
    "snmp-agent|info-center|header|user-interface|aaa|stp|lldp|ssh|stelnet|telnet|ftp|sftp",
    "clock|local-user|radius-server|hwtacacs-server|nqa|bfd|vrrp|dhcp|mpls|port-group",
    "traffic|qos|arp|mac-address|port-isolate|http|sflow|netstream|observe-port|set",
)
INTERFACE = (
    *EVERY_VIEW,
    "description|shutdown|port|mtu|speed|duplex|vrrp|eth-trunk|negotiation|jumboframe|trust",
    "traffic-filter|traffic-policy|arp-proxy",
    "ip address|binding",
    "ipv6 address|enable",
    "dhcp select",
    # first words the system view has too, with other words there (`ospf 1` opens a process,
    # `stp priority 0` is the bridge's): what the interface takes, word by word
    "ospf cost|timer|network-type|authentication-mode|enable|dr-priority|mtu-enable|bfd",
    "isis enable|cost|circuit-type|circuit-level|authentication-mode|timer|silent|bfd",
    "rip version|metricin|metricout|split-horizon|poison-reverse|authentication-mode",
    "stp edged-port|disable|enable|cost|port|root-protection|bpdu-filter|loop-protection",
    "stp point-to-point",
    "stp instance <n> cost|port",
    "lldp enable|disable|tlv-enable|admin-status|management-address",
    "port-isolate enable",
)
OSPF = (
    *EVERY_VIEW,
    "area|import-route|default-route-advertise|silent-interface|bandwidth-reference",
)
OSPF_AREA = (*EVERY_VIEW, "network|authentication-mode|stub|nssa|abr-summary|description")
BGP = (*EVERY_VIEW, "router-id|peer|group|ipv4-family|ipv6-family|import-route|network")
BGP_FAMILY = (*EVERY_VIEW, "network|peer|import-route|maximum|preference|aggregate")
VLAN = (*EVERY_VIEW, "name|description")
ACL = (*EVERY_VIEW, "rule|description|step")
USER_INTERFACE = (
    *EVERY_VIEW,
    "authentication-mode|protocol|idle-timeout|shell|history-command|screen-length",
    "user privilege",
    "set authentication",
    "acl <any> inbound|outbound",
    "acl ipv6 <any> inbound|outbound",
)
AAA = (*EVERY_VIEW, "local-user|authentication-scheme|authorization-scheme|domain")
ROUTE_POLICY = (*EVERY_VIEW, "if-match|apply|goto")


VIEWS = (
    mode("interface", r"^interface \S", "interface", INTERFACE),
    mode("ospf", r"^ospf( \d+)?\b", "ospf", OSPF),
    mode("ospf-area", r"^area \S+$", "ospf-area", OSPF_AREA, parent="ospf"),
    mode("bgp", r"^bgp \d+", "bgp", BGP),
    mode("bgp-af", r"^ipv[46]-family\b", "bgp-af", BGP_FAMILY, parent="bgp"),
    mode("vlan", r"^vlan \d+$", "vlan", VLAN),
    mode("user-interface", r"^user-interface ", "ui-vty", USER_INTERFACE),
    mode("aaa", r"^aaa$", "aaa", AAA),
    mode("acl", r"^acl (number |name )?\S+", "acl", ACL),
    mode("route-policy", r"^route-policy \S+ (permit|deny) node \d+", "route-policy", ROUTE_POLICY),
)

GRAMMAR = Grammar(
    name="huawei_vrp",
    global_commands=command_tree(SYSTEM_VIEW),
    modes=VIEWS,
    interface_names=(
        "GigabitEthernet",
        "Ethernet",
        "XGigabitEthernet",
        "LoopBack",
        "Vlanif",
        "Eth-Trunk",
        "NULL",
    ),
    negations=("undo",),
)
