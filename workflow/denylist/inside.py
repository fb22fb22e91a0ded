"""Rules that hold only inside a section: a management interface, a terminal line, a routing
process. `shutdown` under Gi0/1 is ordinary; under Management1 it cuts the device off, under
`router bgp 65000` it drops every session.

A management interface is the one labbot reaches the device through (the interface holding the
inventory's address of the device, when the device's facts show one), and any whose name says
so (Management1, `Management 1`, mgmt0, MEth0/0/1, fxp0, em0, me0); a terminal line is ``line
vty``/``line con``/``line aux`` (VRP ``user-interface``). Where the platform has a mode grammar
(`base.grammar`) a line is in the section the grammar lands it in; elsewhere sections end at the
next interface/line/router header or at ``exit``, ``!``, ``quit`` or ``end``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from workflow.denylist.matching import Pattern, is_management_interface, parse
from workflow.denylist.rules import Family, Rule

__all__ = ["SECTIONS", "section_hit", "section_of"]

_MGMT = "would cut off management access to the device"
_LINES = "changes who can log in on the console or vty lines, or how"
# Inside a management interface: what would cut the device off (`no shutdown` is fine).
MGMT_INTERFACE = (
    "~ip add[ress]",
    "~ipv6 add[ress]",
    "~ip un[numbered]",
    "~ip acc[ess-group]",
    "~ipv6 tr[affic-filter]",
    "~vrf",
    "~ip vrf",
    "~cha[nnel-group]",
    "~sw[itchport]",
    "~enc[apsulation]",
    "~sp[eed]",
    "~du[plex]",
    "~mt[u]",
    "~media[-type]",
    "~ip bi[nding]",
    "sh[utdown]",
)
# Inside a terminal line (console, vty, aux; VRP user-interface): who may log in and how.
TERMINAL_LINE = (
    "~log[in]",
    "~pas[sword]",
    "~tr[ansport]",
    "~acc[ess-class]",
    "~ipv6 acc[ess-class]",
    "~au[tocommand]",
    "~pri[vilege]",
    "~exec$",
    "exec-t[imeout] 0 <nonzero>",  # seconds: every session (labbot's too) ends within a minute
    "~rot[ary]",
    "~aut[hentication-mode]",
    "~pro[tocol] in[bound]",
    "~acl",
    "~set au[thentication]",
    "~us[er] pri[vilege]",
    "~sh[ell]",
)
ROUTING_PROCESS = ("sh[utdown]",)


@dataclass(frozen=True)
class Section:
    """A kind of section and the rules inside it (all of one id, family and reason)."""

    name: str
    rule: Rule
    patterns: tuple[Pattern, ...]


def _section(name: str, rid: str, family: Family, reason: str, specs: Sequence[str]) -> Section:
    rule = Rule(rid, family, f"inside a {name}", reason)
    return Section(name, rule, tuple(parse(spec) for spec in specs))


SECTIONS = {
    "management interface": _section(
        "management interface", "mgmt-interface", "management", _MGMT, MGMT_INTERFACE
    ),
    "terminal line": _section(
        "terminal line", "terminal-lines", "management", _LINES, TERMINAL_LINE
    ),
    "routing process": _section(
        "routing process",
        "routing-shutdown",
        "kill-switch",
        "shuts a whole routing process down",
        ROUTING_PROCESS,
    ),
}
_SECTION_END = ("exit", "!", "end", "quit", "#")


def section_of(
    tokens: Sequence[str], current: str | None, management: str | None = None
) -> str | None:
    """Which rule-bearing section a line opens, keeps or closes; `management` names the
    interface labbot reaches the device through (its address is the device's in the inventory),
    a management interface whatever its name."""
    if not tokens:
        return current
    first = tokens[0]
    if len(first) >= 3 and "interface".startswith(first):
        names = tokens[2:] if len(tokens) > 2 and tokens[1] == "range" else tokens[1:]
        name = " ".join(names)
        reached = management is not None and _flat(name) == _flat(management)
        return "management interface" if reached or is_management_interface(name) else None
    if (len(first) >= 3 and "line".startswith(first)) or first.startswith("user-interface"):
        return "terminal line"
    if first == "router":
        return "routing process"
    if first in _SECTION_END:
        return None
    return current


def _flat(name: str) -> str:
    return "".join(name.split()).casefold()


def section_hit(section: str | None, tokens: Sequence[str]) -> Rule | None:
    """The section's rule when `tokens` (a line inside `section`) break it, else None."""
    if section is None:
        return None
    found = SECTIONS[section]
    return found.rule if any(p.matches(tokens) for p in found.patterns) else None
