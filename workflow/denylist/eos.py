"""Arista EOS rules, on top of the IOS ones (EOS shares that CLI): its shells, daemons and
multi-line aliases, event handlers and schedules, management services, zero-touch
provisioning."""

from __future__ import annotations

from workflow.denylist import ios
from workflow.denylist.rules import Rule, family_rules

_SHELL = "runs a shell or a program on the device"
_HANDLER = "runs commands or scripts when an event fires or on a schedule"

EOS_ONLY = (
    family_rules(
        "shell",
        (
            ("shell", "act[ion] ba[sh]", _SHELL),
            ("shell", "python-s[hell]", _SHELL),
            (  # `alias NAME` alone opens one: its lines are `10 bash`, read nowhere else
                "alias-block",
                "al[ias] <any>$",
                "defines a multi-line alias, whose numbered commands are not judged one by one",
            ),
            ("shell", "~dae[mon]", _SHELL),
            ("zerotouch", "~zer[otouch]", "zero-touch provisioning fetches and runs remote config"),
        ),
    )
    + family_rules(
        "management",
        (("management-services", "~man[agement]", "changes ssh, telnet, API or console access"),),
    )
    + family_rules(
        "kill-switch",
        (("agent-shutdown", "ag[ent] <any> sh[utdown]", "stops a system agent (Rib, Bgp, …)"),),
    )
    + family_rules(
        "exfiltration",
        (
            ("event-handler", "~ev[ent-handler]", _HANDLER),
            ("event-handler", "~sch[edule]", _HANDLER),
            ("span", "tcpd[ump]", "captures the device's traffic (to a file or the session)"),
        ),
    )
)
RULES: tuple[Rule, ...] = EOS_ONLY + ios.RULES
