"""Cisco IOS and IOS-XE configuration modes, from Cisco's command references (the facts Batfish's
open-source IOS grammar also models): which commands each sub-mode accepts, two or more words
deep where a first word is shared with global configuration.

`ip address` stays under an interface; `ip rcmd`, `ip pim rp-address`, `ip tcp synwait-time`,
`arp 10.0.0.1 …` (a static entry), `logging rate-limit`, `cdp timer`, `lldp timer` and `mpls ldp
router-id` do not: IOS runs them in global configuration. Global configuration is closed by its
first word; past it, any words (IOS has hundreds of `ip …` commands, all global).
"""

from __future__ import annotations

from base.grammar.commands import command_tree
from base.grammar.model import Grammar, mode

__all__ = ["GRAMMAR"]

EVERY_MODE = ("exit", "end")  # leave modes; a template may not type them (workflow.safety.sections)

GLOBAL_COMMANDS = (
    *EVERY_MODE,
    "aaa|access-list|alias|archive|arp|banner|bfd|boot|bridge|call-home|cdp|class-map|clock",
    "config-register|control-plane|crypto|default-information|dial-peer|dot1x|enable",
    "errdisable|event|exception|file|flow|hostname|interface|ip|ipv6|key|kron|l2tp|lacp",
    "license|line|lldp|logging|login|mac|mac-address-table|memory|monitor|mpls|multilink",
    "netconf|ntp|object-group|parser|platform|policy-map|port-channel|privilege|radius",
    "radius-server|redundancy|restconf|rmon|route-map|router|sampler|scheduler|service",
    "snmp|snmp-server|spanning-tree|tacacs|tacacs-server|tftp-server|track|udld|username",
    "version|vlan|vrf|vtp|wsma|ssh|telnet|sdm|system|power|diagnostic|errdisable|hw-module",
    "template|zone|zone-pair|vpdn|virtual-service|table-map|stack-mac|switch|storm-control",
    "mls|qos|snmp-server|ethernet|evc|cts|epm|pnp|guest-shell|iox|transceiver|macro|location",
)
# Second words of global `ip`/`ipv6`, spelled out when typed short (`ip rou` -> `ip route`);
# any other second word is global too.
GLOBAL_IP = (
    "ip route|domain|domain-name|name-server|prefix-list|http|ssh|scp|routing|cef|access-list",
    "ip forward-protocol|nat|host|default-gateway|default-network|sla|ospf|multicast-routing",
    "ip community-list|as-path|local|ftp|tftp|dns|finger|bootp|source-route|subnet-zero",
    "ip classless|icmp|radius|tacacs|explicit-path|dhcp|arp|rcmd|pim|mroute|tcp|igmp|vrf",
    "ip extcommunity-list|policy-list|sla|wccp|flow-export|flow-cache|msdp|rsvp|nhrp|telnet",
    "ip multicast|flow|verify|accounting-threshold|accounting-list|igmp|ssh|sla|bgp-community",
    "ip",
    "ipv6 route|unicast-routing|cef|prefix-list|access-list|host|dhcp|multicast-routing",
    "ipv6 router|pim|mld|nd|neighbor|general-prefix|local|ospf|icmp|source-route|name-server",
    "ipv6",
)

INTERFACE = (
    *EVERY_MODE,
    "description|shutdown|speed|duplex|mtu|bandwidth|encapsulation|channel-group",
    "channel-protocol|standby|vrrp|glbp|negotiation|load-interval|service-policy|media-type",
    "delay|keepalive|storm-control|tunnel|carrier-delay|hold-queue|mac-address|switchport",
    "isis|mab|flowcontrol|dampening|pppoe|ppp|dialer|priority-queue|srr-queue|queue-set",
    "zone-member|ospfv3|xconnect|pvc",
    # first words global configuration has too, with other second words there
    "service instance",
    "clock rate|source",
    "power inline|efficient-ethernet",
    "peer default",
    "dot1x pae|port-control|timeout|max-reauth-req|max-req|reauthentication|host-mode",
    "dot1x violation|guest-vlan|auth-fail|control-direction",
    "authentication port-control|host-mode|order|priority|periodic|timer|event|open",
    "authentication violation|control-direction|fallback",
    "ip address|helper-address|access-group|mtu|redirects|unreachables|proxy-arp|unnumbered",
    "ip local-proxy-arp|directed-broadcast|policy|route-cache|mroute-cache|summary-address",
    "ip hello-interval|hold-time|authentication|split-horizon|bandwidth-percent|rip|router",
    "ip virtual-reassembly|accounting|load-sharing|information-reply|mask-reply|irdp|nhrp",
    "ip rsvp bandwidth|resource-provider",
    "ip verify unicast|source",
    "ip flow ingress|egress|monitor",
    "ip multicast boundary|ttl-threshold|helper-map|rate-limit",
    "ip ospf !name-lookup",
    "ip igmp join-group|version|query-interval|query-max-response-time|access-group|limit",
    "ip igmp static-group|last-member-query-interval|last-member-query-count|helper-address",
    "ip igmp mroute-proxy|proxy-service|immediate-leave|explicit-tracking|query-timeout",
    "ip vrf forwarding|receive",
    "ip nat inside|outside|enable $",
    "ip tcp adjust-mss",
    "ip pim sparse-mode|dense-mode|sparse-dense-mode|passive|dr-priority|query-interval",
    "ip pim bsr-border|neighbor-filter|nbma-mode",
    "ip dhcp snooping trust|limit",
    "ip dhcp relay information trusted|check|policy",
    "ip dhcp client",
    "ip arp inspection trust|limit",
    "ip wccp <any> redirect|group-listen",
    "ip wccp redirect",
    "ipv6 address|enable|nd|mtu|traffic-filter|unnumbered|eigrp|rip",
    "ipv6 ospf !name-lookup",
    "ipv6 router isis",
    "ipv6 mld join-group|static-group|access-group|query-interval|query-max-response-time",
    "ipv6 mld query-timeout|limit|router|explicit-tracking",
    "ipv6 policy|verify|redirects|unreachables|flow|virtual-reassembly|destination-guard",
    "ipv6 dhcp server|client|relay",
    "ipv6 pim $",
    "ipv6 pim dr-priority|hello-interval",
    "ipv6 pim bsr border",
    "arp timeout|arpa|probe|snap|frame-relay",
    "logging event",
    "cdp enable|tlv",
    "lldp transmit|receive|tlv-select|med-tlv-select",
    "mpls ip|mtu|bgp",
    "mpls label protocol",
    "mpls traffic-eng tunnels|attribute-flags|administrative-weight|backup-path|flooding|srlg",
    "mpls ldp discovery transport-address",
    "mpls ldp igp sync delay",
    "spanning-tree portfast $",
    "spanning-tree portfast trunk|disable",
    "spanning-tree portfast edge $",
    "spanning-tree portfast edge trunk",
    "spanning-tree bpduguard|bpdufilter|cost|port-priority|guard|link-type",
    "spanning-tree vlan|mst <any> cost|port-priority",
    "snmp trap",
    "ntp disable|broadcast|multicast",
    "vrf forwarding",
    "bfd interval|echo|template",
    "udld port",
    "mac access-group",
    "crypto map",
    "lacp port-priority|rate",
    "mls qos trust|cos",
)
ROUTER = (
    *EVERY_MODE,
    "router-id|network|neighbor|passive-interface|redistribute|area|auto-cost|distance",
    "default-information|default-metric|maximum-paths|log-adjacency-changes|timers|bgp",
    "address-family|synchronization|auto-summary|summary-address|ispf|shutdown",
    "distribute-list|capability|eigrp|metric|variance|offset-list|version|validate-update-source",
    "net|is-type|metric-style|compatible|max-metric|nsf|nsr|traffic-share|table-map",
    "bfd all-interfaces",
    "aggregate-address|discard-route|prefix-suppression|fast-reroute|ignore|domain-id|stub",
    "event-log|graceful-restart|queue-depth|max-lsa|authentication|output-delay",
    "mpls ldp sync|autoconfig",
    "mpls traffic-eng area|router-id|level-1|level-2",
    "af-interface|topology",
)
ROUTER_AF = (
    *EVERY_MODE,
    "exit-address-family|network|neighbor|redistribute|maximum-paths|aggregate-address",
    "default-information|auto-summary|distance|synchronization|bgp|table-map|default-metric",
    "area|router-id|passive-interface|summary-address|import|export",
)
LINE = (
    *EVERY_MODE,
    "exec-timeout|password|transport|history|length|width|stopbits",
    "login $",
    "login local|authentication",
    "privilege level",
    "session-timeout|access-class|exec|autocommand|rotary|speed|databits|parity|flowcontrol",
    "escape-character|absolute-timeout|authorization|accounting|motd-banner|exec-banner",
    "notify|terminal-type|activation-character|modem|vacant-message|logout-warning|location",
    "ipv6 access-class",
    "logging synchronous",
)
VLAN = (*EVERY_MODE, "name|state|shutdown|private-vlan|remote-span|mtu|media")
ACCESS_LIST = (
    *EVERY_MODE,
    "permit|deny|remark|evaluate|statistics|fragments",
    "<n> permit|deny|remark|evaluate",
)
ROUTE_MAP = (*EVERY_MODE, "match|set|description|continue")
VRF = (
    *EVERY_MODE,
    "rd|route-target|description|address-family|vnet|import|export|maximum|vpn|route-replicate",
)
VRF_AF = (*EVERY_MODE, "exit-address-family|route-target|import|export|maximum|mdt")
CONTROL_PLANE = (*EVERY_MODE, "service-policy")
DHCP_POOL = (
    *EVERY_MODE,
    "network|default-router|dns-server|domain-name|lease|option|netbios-name-server|host",
    "client-identifier|hardware-address|class|bootfile|next-server|import|netbios-node-type",
)
KEY_CHAIN = (*EVERY_MODE, "key <n> $", "description")
KEY = (*EVERY_MODE, "key-string|accept-lifetime|send-lifetime|cryptographic-algorithm")
CLASS_MAP = (*EVERY_MODE, "match|description")
POLICY_MAP = (*EVERY_MODE, "class|description")
POLICY_CLASS = (
    *EVERY_MODE,
    "police|set|bandwidth|priority|shape|queue-limit|random-detect|fair-queue",
    "service-policy|drop|compress|trust",
)
MST = (*EVERY_MODE, "name|revision|instance|private-vlan")
TRACK = (*EVERY_MODE, "delay|default-state")
SLA = (*EVERY_MODE, "icmp-echo|udp-jitter|tcp-connect|frequency|threshold|timeout|tag")
SLA_TYPE = (*EVERY_MODE, "frequency|threshold|timeout|tag|source-interface|request-data-size")


# key chains and QoS class and policy maps, alike on IOS and EOS
KEYS_AND_QOS = (
    mode("keychain", r"^key chain \S+", "config-keychain", KEY_CHAIN),
    mode("keychain-key", r"^key \d+$", "config-keychain-key", KEY, parent="keychain"),
    mode("class-map", r"^class-map ", "config-cmap", CLASS_MAP),
    mode("policy-map", r"^policy-map ", "config-pmap", POLICY_MAP),
    mode("pmap-class", r"^class ", "config-pmap-c", POLICY_CLASS, parent="policy-map"),
)
MODES = (
    mode("if", r"^interface (range )?\S", "config-if", INTERFACE),
    mode("router", r"^router (ospf|eigrp|rip|isis|bgp|ospfv3)\b", "config-router", ROUTER),
    mode("router", r"^ipv6 router (ospf|eigrp|rip)\b", "config-rtr", ROUTER),
    mode("router-af", r"^address-family ", "config-router-af", ROUTER_AF, parent="router"),
    mode("line", r"^line (con|console|aux|vty)\b", "config-line", LINE),
    mode("vlan", r"^vlan [\d,-]+$", "config-vlan", VLAN),
    mode("acl", r"^ip access-list extended ", "config-ext-nacl", ACCESS_LIST),
    mode("acl", r"^ip access-list standard ", "config-std-nacl", ACCESS_LIST),
    mode("acl", r"^ipv6 access-list ", "config-ipv6-acl", ACCESS_LIST),
    mode("acl", r"^mac access-list extended ", "config-ext-macl", ACCESS_LIST),
    mode("route-map", r"^route-map ", "config-route-map", ROUTE_MAP),
    mode("vrf", r"^(vrf definition|ip vrf) ", "config-vrf", VRF),
    mode("vrf-af", r"^address-family ", "config-vrf-af", VRF_AF, parent="vrf"),
    mode("cp", r"^control-plane$", "config-cp", CONTROL_PLANE),
    mode("dhcp", r"^ip dhcp pool \S+", "dhcp-config", DHCP_POOL),
    *KEYS_AND_QOS,
    mode("mst", r"^spanning-tree mst configuration$", "config-mst", MST),
    mode("track", r"^track \d+ ", "config-track", TRACK),
    mode("sla", r"^ip sla \d+$", "config-ip-sla", SLA),
    mode(
        "sla-type", r"^(icmp-echo|udp-jitter|tcp-connect) ", "config-ip-sla-echo", SLA_TYPE, "sla"
    ),
)

INTERFACE_NAMES = (
    "GigabitEthernet",
    "FastEthernet",
    "Ethernet",
    "Loopback",
    "TenGigabitEthernet",
    "Tunnel",
    "Vlan",
    "Port-channel",
    "Serial",
)

GRAMMAR = Grammar(
    name="cisco_ios",
    global_commands=command_tree((*GLOBAL_COMMANDS, *GLOBAL_IP)),
    modes=MODES,
    interface_names=INTERFACE_NAMES,
)
