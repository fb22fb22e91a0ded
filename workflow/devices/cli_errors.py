"""What a CLI error reply looks like, per platform family: the one rule labbot uses both for reads
(a refused `show` is that device's failure, never configuration) and for pushed lines (netmiko's
`error_pattern`, which stops a push at the first line the device refuses).

IOS-like CLIs start an error reply with `%` at the left margin (`% Invalid input detected at '^'
marker.`), after at most a line holding the `^` marker. FRR's vtysh says most errors that way
too, but some without `%` (`BGP is already running; AS is 65001`, `There is already same
network statement.`). Junos says `syntax error` / `unknown command.` / `error: …`.
"""

from __future__ import annotations

import functools
import itertools
import re

from workflow.model import platform_family

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
)
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

_PERCENT = r"% ?(?:" + "|".join(re.escape(word) for word in PERCENT_ERRORS) + r")\b.*"
_BY_FAMILY: dict[str, str] = {
    "frr": "|".join([_PERCENT, *FRR_ERRORS]),
    "juniper_junos": "|".join([_PERCENT, *JUNOS_ERRORS]),
}
REPLY_LINES = 3  # an error reply is said at once: look no further than its first lines
_MARKER = re.compile(r"^\s*\^\s*$")  # IOS's `^` under the refused word


def _pattern(platform: str) -> str:
    return _BY_FAMILY.get(platform_family(platform), _PERCENT)


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
