"""FRRouting (vtysh) rules, on top of the IOS ones (vtysh shares that CLI): the vty password,
log files and banner files (FRR runs as root: `log file /etc/...` writes anywhere), its shell,
routing data sent to other hosts (BMP, FPM) and turning forwarding off."""

from __future__ import annotations

from workflow.denylist import ios
from workflow.denylist.rules import Rule, family_rules

FRR_ONLY = (
    family_rules(
        "management",
        (("vty-password", "~pas[sword]", "sets the password of vtysh logins"),),
    )
    + family_rules(
        "shell",
        (
            ("log-file", "log f[ile]", "writes the log to a file of the host (FRR runs as root)"),
            ("log-file", "log filtered-f[ile]", "writes the log to a file of the host"),
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
        ),
    )
)
RULES: tuple[Rule, ...] = FRR_ONLY + ios.RULES
