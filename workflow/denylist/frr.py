"""FRRouting (vtysh) rules, on top of the IOS ones (vtysh shares that CLI): the vty password,
log files and banner files (FRR runs as root: `log file /etc/...` writes anywhere), its shell,
routing data sent to other hosts (BMP, FPM) and turning forwarding off."""

from __future__ import annotations

from workflow.denylist import ios
from workflow.denylist.rules import Rule, family_rules

_KERNEL = "filters which routes reach the kernel (a deny-all route-map drops every route)"
FRR_ONLY = (
    family_rules(
        "management",
        (
            ("vty-password", "~pas[sword]", "sets the password of vtysh logins"),
            ("vtysh-config", "~ser[vice] integrated-v[tysh-config]", "changes how FRR saves"),
        ),
    )
    + family_rules(
        "shell",
        (
            ("log-file", "lo[g] f[ile]", "writes the log to a file of the host (FRR runs as root)"),
            ("log-file", "lo[g] filt[ered-file]", "writes the log to a file of the host"),
            ("write", "wr[ite]", "writes the configuration to files of the host"),
            ("shell", "start-s[hell]", "runs a shell on the host"),
        ),
    )
    + family_rules(
        "exfiltration",
        (
            ("bmp", "bmp co[nnect]", "sends BGP sessions and routes to another host (BMP)"),
            ("bmp", "bmp l[istener]", "lets another host collect BGP sessions and routes (BMP)"),
            ("fpm", "fpm a[ddress]", "sends the forwarding table to another host (FPM)"),
            ("fpm", "fpm con[nection]", "sends the forwarding table to another host (FPM)"),
            ("agentx", "~agentx", "exposes the router's state to the host's SNMP agent"),
        ),
    )
    + family_rules(
        "kill-switch",
        (
            ("kernel-filter", "~ip prot[ocol]", _KERNEL),
            ("kernel-filter", "~ipv6 prot[ocol]", _KERNEL),
        ),
    )
)
RULES: tuple[Rule, ...] = FRR_ONLY + ios.RULES
