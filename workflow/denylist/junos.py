"""Juniper Junos rules (`set`/`delete`/`deactivate` lines; exec commands behind `run`); a line
that writes elsewhere than it says (`edit`, groups, copy, rename, load) is refused."""

from __future__ import annotations

from workflow.denylist.rules import Rule, family_rules

_ACCESS = "changes who can log in or how (accounts, AAA, passwords)"
_SHELL = "runs a shell or script on the device"
_FLOW = "exports traffic records (flow monitoring, sampling, sFlow) to another host"
_SPAN = "copies the device's traffic to a port or another host (port mirroring, analyzer)"

EXEC = family_rules(
    "exec",
    (
        ("reload", "req[uest] sy[stem]", "reboots, halts, zeroizes or upgrades the device"),
        ("factory-reset", "lo[ad] fa[ctory-default]", "loads the factory-default configuration"),
        ("configure", "lo[ad] o[verride]", "replaces the whole configuration"),
        ("configure", "rol[lback]", "loads an earlier configuration wholesale"),
        ("write-erase", "de[lete]$", "deletes the whole configuration"),
        ("delete", "fi[le] de[lete]", "deletes files from the device"),
    ),
) + family_rules(
    "exec",
    (
        ("configure", "conf[igure]", "enters configuration mode inside a template"),
        ("end", "ex[it] co[nfiguration-mode]", "leaves configuration mode"),
    ),
    allowable=False,
)
SHELL = family_rules(
    "shell",
    (
        ("shell", "st[art] sh[ell]", _SHELL),
        ("shell", "se[t] sy[stem] sc[ripts]", _SHELL),
        ("shell", "op", _SHELL),
    ),
)
MANAGEMENT = family_rules(
    "management",
    (
        ("system-delete", "de[lete] sy[stem]", "removes system settings (logins, services, ...)"),
        ("system-delete", "dea[ctivate] sy[stem]", "disables system settings (services, ...)"),
        ("users", "se[t] sy[stem] lo[gin] u[ser]", "adds or changes a login account"),
        ("users", "se[t] sy[stem] lo[gin] c[lass]", "changes what a login class may do"),
        ("enable", "se[t] sy[stem] ro[ot-authentication]", "changes the root password"),
        ("aaa", "se[t] sy[stem] au[thentication-order]", _ACCESS),
        ("aaa", "se[t] sy[stem] ta[cplus-server]", _ACCESS),
        ("aaa", "se[t] sy[stem] ra[dius-server]", _ACCESS),
        ("management-services", "se[t] sy[stem] se[rvices]", "changes ssh, telnet, netconf"),
        (
            "snmp-write",
            "se[t] sn[mp] c[ommunity] <any> ... read-w[rite]",
            "gives SNMP write access",
        ),
        ("snmp-v3", "se[t] sn[mp] v3", "adds or changes SNMPv3 users or access"),
        ("mgmt-interface", "de[lete] in[terfaces] <mgmt>", "removes the management interface"),
        ("mgmt-interface", "dea[ctivate] in[terfaces] <mgmt>", "disables the management interface"),
        (
            "mgmt-interface",
            "se[t] in[terfaces] <mgmt> di[sable]",
            "disables the management interface",
        ),
        (  # its addresses, filters, units, speed: `ip address` under Management1 on IOS
            "mgmt-interface",
            "se[t] in[terfaces] <mgmt>",
            "changes the management interface (addresses, filters, units)",
        ),
    ),
)
KILL_SWITCH = family_rules(
    "kill-switch",
    (
        ("routing-process", "de[lete] pro[tocols]$", "removes every routing protocol"),
        ("routing-process", "de[lete] pro[tocols] <any>$", "removes a whole routing protocol"),
        ("routing-process", "dea[ctivate] pro[tocols]", "disables a routing protocol"),
        ("routing-process", "de[lete] routing-o[ptions]$", "removes the routing options"),
        ("copp", "se[t] in[terfaces] lo0 ... fi[lter]", "filters what reaches the CPU (lo0)"),
        ("copp", "se[t] sy[stem] ddos[-protection]", "changes what reaches the CPU"),
        ("clear", "cl[ear]", "resets sessions, tables or counters (BGP and OSPF sessions drop)"),
    ),
)
EXFILTRATION = family_rules(
    "exfiltration",
    (
        (
            "logging-host",
            "se[t] sy[stem] sy[slog] h[ost]",
            "sends the device's logs to another host",
        ),
        ("archive", "se[t] sy[stem] ar[chival]", "copies every committed configuration elsewhere"),
        ("snmp-host", "se[t] sn[mp] trap-g[roup]", "sends SNMP traps to other hosts"),
        ("flow-export", "se[t] ser[vices] fl[ow-monitoring]", _FLOW),
        ("flow-export", "se[t] fo[rwarding-options] sa[mpling]", _FLOW),
        ("flow-export", "se[t] pro[tocols] sf[low]", _FLOW),
        ("span", "se[t] fo[rwarding-options] port-m[irroring]", _SPAN),
        ("span", "se[t] fo[rwarding-options] an[alyzer]", _SPAN),
        ("event-handler", "se[t] ev[ent-options]", "runs commands or scripts when events fire"),
        ("copy", "sa[ve] <remote>", "exports the configuration to another host"),
        ("copy", "fi[le] co[py]", "copies files to or from the device"),
    ),
)
_ELSEWHERE = "writes configuration where no line of it says (rules judge lines as written)"
# What makes the lines after it, or configuration no line shows, land elsewhere: never allowed,
# as `conf t` (a group applied, a copy of an interface onto fxp0, `edit system` then `set telnet`)
ELSEWHERE = family_rules(
    "unreadable",
    (
        ("junos-edit", "ed[it]", "moves to a level: the lines after it land under it, unjudged"),
        ("junos-groups", "se[t] gr[oups]", _ELSEWHERE),
        ("junos-groups", "se[t] apply-g[roups]", _ELSEWHERE),
        ("junos-copy", "cop[y]", _ELSEWHERE),
        ("junos-copy", "ren[ame]", _ELSEWHERE),
        ("junos-copy", "lo[ad]", _ELSEWHERE),
    ),
    allowable=False,
)
RULES: tuple[Rule, ...] = EXEC + SHELL + MANAGEMENT + KILL_SWITCH + EXFILTRATION + ELSEWHERE
