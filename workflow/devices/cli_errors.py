"""What a CLI error reply looks like, per platform family: the one rule labbot uses both for reads
(a refused `show` is that device's failure, never configuration) and for pushed lines (netmiko's
`error_pattern`, which stops a push at the first line the device refuses).

Each family's replies are a table below, as the devices print them (recorded from real devices
and the simulators fake-switches and FakeNOS):

- IOS, IOS-XE, NX-OS, EOS start an error reply with `%` at the left margin (`% Invalid input
  detected at '^' marker.`), after at most a line holding the `^` marker;
- FRR's vtysh says most errors that way too (`% Unknown command: …`, `% Command incomplete: …`),
  some without `%` (`BGP is already running; AS is 65001`);
- Junos says `unknown command.`, `syntax error, expecting <command>.`, `error: …`;
- VRP (and Comware) say `Error: Unrecognized command found at '^' position.` (Comware with `%`);
- a Linux shell says `bash: foo: command not found`, `-sh: foo: not found`.
"""

from __future__ import annotations

import functools
import itertools
import re
from typing import Literal

from workflow.model import platform_family

__all__ = ["dialect"]

Dialect = Literal["ios", "frr", "junos", "vrp", "linux"]

# `%` replies of IOS, IOS-XE, NX-OS, EOS and FRR (and anything IOS-like).
PERCENT_ERRORS = (
    "Invalid input",
    "Invalid command",
    "Unknown command",
    "Incomplete command",
    "Command incomplete",
    "Ambiguous command",
    "Access denied",
    "Authorization failed",
    "Authorization denied",
    "Permission denied",
    "Unavailable command",
    "Not authorized",
    "Bad secrets",
    "Error",
    "Unrecognized command",  # Comware: `% Unrecognized command found at '^' position.`
    "Wrong parameter",
    "Too many parameters",
)
_PERCENT = r"% ?(?:" + "|".join(re.escape(word) for word in PERCENT_ERRORS) + r")\b.*"
# FRR errors printed without `%` (vtysh passes the daemon's own text through).
FRR_ERRORS = (
    r"BGP is already running; AS is \d+",
    r"There is already same network statement\.?",
    r"Can't find static route specified",
    r"Please specify .+ first",
    r"Specify remote-as or peer-group commands first",
    r"Malformed address",
    r"Inconsistent address and mask",
    r"Unknown command",
    r"Configuration failed",
)
JUNOS_ERRORS = (r"syntax error.*", r"unknown command.*", r"error: .+", r"missing argument.*")
# VRP: `Error: Unrecognized command found at '^' position.`, `Error: Wrong parameter found at
# '^' position.`, `Error: Incomplete command found at '^' position.`, `Error: You do not have
# permission to run the command …`
VRP_ERRORS = (r"Error: .+",)
# bash, dash, busybox ash: `bash: foo: command not found`, `-sh: foo: not found`,
# `sh: 1: foo: not found`, `bash: line 1: foo: command not found`
SHELL_ERRORS = (
    r"-?[\w./-]*sh: (?:line )?(?:\d+: )?\S.*: (?:command )?not found",
    r"-?[\w./-]*sh: (?:line )?(?:\d+: )?\S.*: Permission denied",
)

ERRORS: dict[Dialect, tuple[str, ...]] = {
    "ios": (_PERCENT,),
    "frr": (_PERCENT, *FRR_ERRORS),
    "junos": (_PERCENT, *JUNOS_ERRORS),
    "vrp": (_PERCENT, *VRP_ERRORS),
    "linux": SHELL_ERRORS,
}
# platform family (netmiko's device type, without _telnet/_ssh) -> its CLI's dialect; any
# other family is IOS-like
DIALECTS: dict[str, Dialect] = {
    "frr": "frr",
    "juniper": "junos",
    "juniper_junos": "junos",
    "huawei": "vrp",
    "huawei_vrp": "vrp",
    "huawei_vrpv8": "vrp",
    "hp_comware": "vrp",
    "h3c_comware": "vrp",
    "linux": "linux",
}
ENABLE_DIALECTS: frozenset[Dialect] = frozenset({"ios", "frr"})  # where `enable` exists
REPLY_LINES = 3  # an error reply is said at once: look no further than its first lines
_MARKER = re.compile(r"^\s*\^\s*$")  # IOS's and VRP's `^` under the refused word


def dialect(platform: str) -> Dialect:
    """The CLI dialect `platform` speaks (`huawei_telnet` -> vrp, `cisco_xe` -> ios)."""
    return DIALECTS.get(platform_family(platform), "ios")


def has_enable(platform: str) -> bool:
    """Whether the platform's CLI has an `enable` (IOS-like, FRR's vtysh with an enable
    password); Junos, VRP and a Linux shell do not (netmiko's `enable` there means config
    mode or sudo, which a read never needs)."""
    return dialect(platform) in ENABLE_DIALECTS


def _pattern(platform: str) -> str:
    return "|".join(ERRORS[dialect(platform)])


def config_error_pattern(platform: str) -> str:
    """netmiko's `error_pattern` for pushing to `platform` (searched with re.M)."""
    return rf"^\s*(?:{_pattern(platform)})"


def error_reply(platform: str, output: str) -> str | None:
    """The error a device answered a read with (its first line, stripped), or None when the
    output is a real answer. Only the reply's first lines count: a running config may quote
    such text further down (a banner, a description)."""
    rule = _reply_rule(_pattern(platform))
    lines = (line for line in output.splitlines() if line.strip() and not _MARKER.match(line))
    for line in itertools.islice(lines, REPLY_LINES):  # not the whole of a long answer
        if rule.match(line):
            return line.strip()
    return None


@functools.cache
def _reply_rule(pattern: str) -> re.Pattern[str]:
    """A whole reply line of `pattern`, compiled once per family (every read is checked)."""
    return re.compile(rf"^\s*(?:{pattern})$", re.IGNORECASE)
