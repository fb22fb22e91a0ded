"""Huawei VRP rules (also HP Comware, which shares its syntax); `undo` is its `no`."""

from __future__ import annotations

from workflow.denylist.rules import Rule, family_rules

_ACCESS = "changes who can log in or how (accounts, AAA, passwords)"
_FLOW = "exports traffic records (NetStream, sFlow) to another host"
_SPAN = "copies the device's traffic to a port or another host (port mirroring)"
_COPY = "copies files to or from another host"

EXEC = family_rules(
    "exec",
    (
        ("write-erase", "res[et] sa[ved-configuration]", "erases the saved configuration"),
        ("factory-reset", "res[et] fa[ctory-configuration]", "resets to factory defaults"),
        ("reload", "reb[oot]", "reboots the device"),
        ("reload", "sc[hedule] reb[oot]", "schedules a reboot"),
        ("boot", "st[artup] sa[ved-configuration]", "changes the configuration it boots with"),
        ("boot", "st[artup] sy[stem-software]", "changes the software the device boots"),
        ("delete", "de[lete]", "deletes files from the device"),
        ("format", "fo[rmat]", "formats a file system"),
        ("debug", "de[bugging]", "debugging can overload the device"),
        ("install", "pa[tch]", "installs software patches"),
    ),
) + family_rules(
    "exec",
    (
        ("end", "ret[urn]$", "leaves system view: the next lines would run as user-view commands"),
        ("configure", "sys[tem-view]$", "enters system view inside a template"),
    ),
    allowable=False,
)
SHELL = family_rules(
    "shell",
    (
        ("shell", "ops", "runs Python scripts on the device (OPS)"),
        ("shell", "py[thon]", "runs Python scripts on the device"),
        ("files", "mk[dir]", "changes the device's file systems"),
        ("files", "rmd[ir]", "changes the device's file systems"),
        ("files", "ren[ame]", "changes the device's file systems"),
        ("files", "mo[ve]", "changes the device's file systems"),
    ),
)
MANAGEMENT = family_rules(
    "management",
    (
        ("users", "~lo[cal-user]", "adds, changes or removes a login account"),
        ("aaa", "~aaa", _ACCESS),
        ("enable", "su[per] pa[ssword]", "sets the super (enable) password"),
        ("ssh", "~te[lnet] se[rver]", "changes telnet access to the device"),
        ("ssh", "~st[elnet] se[rver]", "changes SSH access to the device"),
        ("ssh", "~ssh", "changes SSH access to the device"),
        ("http-auth", "~ht[tp]", "changes web management access"),
        ("snmp-write", "~snmp-a[gent] c[ommunity] w[rite]", "gives SNMP write access"),
        ("snmp-v3", "~snmp-a[gent] usm[-user]", "adds or changes an SNMPv3 user"),
        ("snmp-v3", "~snmp-a[gent] g[roup]", "changes what SNMPv3 users may read and write"),
    ),
)
KILL_SWITCH = family_rules(
    "kill-switch",
    (
        ("routing-process", "un[do] os[pf]", "removes a whole routing process"),
        ("routing-process", "un[do] bgp", "removes a whole routing process"),
        ("routing-process", "un[do] is[is]", "removes a whole routing process"),
        ("routing-process", "un[do] rip", "removes a whole routing process"),
        ("logging-off", "un[do] in[fo-center]", "turns logging off or removes where logs go"),
        ("copp", "cpu-d[efend]", "changes what reaches the device's CPU (CPU defend policy)"),
        ("copp", "cpu-defend-p[olicy]", "changes what reaches the device's CPU"),
        ("clear", "res[et]", "resets sessions, tables or counters (BGP and OSPF sessions drop)"),
    ),
)
EXFILTRATION = family_rules(
    "exfiltration",
    (
        ("logging-host", "in[fo-center] l[oghost]", "sends the device's logs to another host"),
        ("snmp-host", "snmp-a[gent] target-h[ost]", "sends SNMP traps to another host"),
        ("flow-export", "sf[low]", _FLOW),
        ("flow-export", "ne[tstream]", _FLOW),
        ("flow-export", "ip ne[tstream]", _FLOW),
        ("span", "ob[serve-port]", _SPAN),
        ("span", "port-m[irroring]", _SPAN),
        ("copy", "tf[tp]", _COPY),
        ("copy", "ftp", _COPY),
        ("copy", "scp", _COPY),
        ("copy", "sftp", _COPY),
    ),
)
RULES: tuple[Rule, ...] = EXEC + SHELL + MANAGEMENT + KILL_SWITCH + EXFILTRATION
