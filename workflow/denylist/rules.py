"""A deny-list rule: its id, its family, the words it matches and why it refuses them.

Families say what a rule protects: `management` (who can reach and log in to the device),
`exfiltration` (configuration, logs, traffic or files leaving the device), `kill-switch`
(control-plane and routing kill switches), `shell` (shells, scripts and files on the device),
`exec` (destructive or mode-changing exec commands) and `unreadable` (a line the policy cannot
read, so it cannot judge it). A rule's id names one meaning across platforms (`logging-host` is
`logging host` on IOS, `set system syslog host` on Junos, `info-center loghost` on VRP), so a
template allows one meaning everywhere.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "CONTROL",
    "FAMILY_TITLES",
    "HELP",
    "REMOTE",
    "SEVEN_BIT_TEXT",
    "WHOLE_LINE_RULES",
    "Family",
    "Rule",
]

Family = Literal["management", "exfiltration", "kill-switch", "shell", "exec", "unreadable"]
FAMILY_TITLES: dict[Family, str] = {
    "management": "management-plane access",
    "exfiltration": "exfiltration",
    "kill-switch": "control-plane and routing kill switch",
    "shell": "shells and files",
    "exec": "destructive exec",
    "unreadable": "unreadable input",
}
# Families a template may allow as a whole; `unreadable` never (nothing judged it).
ALLOWABLE_FAMILIES: tuple[Family, ...] = (
    "management",
    "exfiltration",
    "kill-switch",
    "shell",
    "exec",
)


@dataclass(frozen=True)
class Rule:
    """One rule: `spec` in the syntax of workflow/denylist/matching.py. `allowable` False: no
    template may allow it (it changes how the device reads the lines that follow);
    `restorable`: a rollback may all the same (it restores what the device printed)."""

    id: str
    family: Family
    spec: str
    reason: str
    allowable: bool = True
    restorable: bool = False


def family_rules(
    family: Family, rows: Sequence[tuple[str, str, str]], *, allowable: bool = True
) -> tuple[Rule, ...]:
    """Rules of one family from (id, spec, reason) rows."""
    return tuple(Rule(rid, family, spec, reason, allowable) for rid, spec, reason in rows)


# Rules about a whole line rather than its words (workflow/safety/deny.py applies them).
# never allowed, a rollback's own lines included: a device reads a control character as an
# editing key (Ctrl-U erases what was typed, Ctrl-Z ends configuration mode), so it runs another
# line than the one approved
CONTROL = Rule(
    "control-character",
    "unreadable",
    "",
    "holds a control or line-separator character",
    allowable=False,
)
HELP = Rule("help", "exec", "?", "`?` asks the device for help instead of configuring", False)
REMOTE = Rule(
    "remote-url",
    "exfiltration",
    "",
    "exports the configuration or files to another host, or fetches them",
)
# A description's or remark's character whose UTF-8 bytes a device reading 7 bits per character
# (IOS's default) reads as a control character or `?`: `Ê` (C3 8A) is `C` and a line feed, and
# the rest would run as a command. No template may write one; a rollback may restore a line the
# device printed with one: a device that prints the bytes whole reads 8 bits (IOS's
# `exec-character-bits 7` strips the 8th bit of what it prints as of what it reads).
SEVEN_BIT_TEXT = Rule(
    "seven-bit",
    "unreadable",
    "",
    "a device reading 7 bits sees a control character or `?` in its bytes",
    allowable=False,
    restorable=True,
)
WHOLE_LINE_RULES = (CONTROL, HELP, REMOTE, SEVEN_BIT_TEXT)
