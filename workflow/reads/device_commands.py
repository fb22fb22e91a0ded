"""Messages that are device commands — not an allowed read, not a change asked for in words.

`do reload`, `reload`, `write erase`, `delete flash:x`, `configure replace …`, `copy run
tftp://…`, `copy … scp:` typed to the bot are neither a read nor a change request: they are
refused with the reason before anything is planned or sent (no running configuration is read).
The commands are the deny-list's own exec rules (workflow.denylist, matched by
workflow.safety.deny with its abbreviations and the `do`/`run` prefixes) that no change asked for in
words begins with, and the harmless exec commands below in the same syntax (`write memory`,
`configure terminal`, `clear ip bgp *`); a message starting with `do` is always one.
"""

from __future__ import annotations

from workflow.safety.deny import DenyList, matching_rule

__all__ = ["device_command"]

# deny-list rules (their ids) that name an exec command; `enable`, `install`, `crash` (`test`),
# `debug`, `copy` (`copy the ospf settings …`) or `clear` are left out: a change or a question in
# words may begin with them
_EXEC_RULES = frozenset(
    {
        "reload",
        "write-erase",
        "erase",
        "delete",
        "format",
        "squeeze",
        "factory-reset",
        "shell",
        "download-sw",
        "switchover",
        "event-run",
        "remote-url",
    }
)
_SAVES = "saves the running configuration"
_RESETS = "resets sessions, tables or counters"
_EXEC_ONLY = (  # exec commands the deny-list lets through (they change no configuration)
    ("wr[ite]$", _SAVES),
    ("wr[ite] m[emory]", _SAVES),
    ("cop[y] r[unning-config] s[tartup-config]", _SAVES),
    ("co[nfigure] r[eplace]", "replaces the whole running configuration"),
    ("conf[igure]$", "enters configuration mode"),
    ("conf[igure] t[erminal]", "enters configuration mode"),
    ("cl[ear] ip", _RESETS),
    ("cl[ear] ipv6", _RESETS),
    ("cl[ear] bgp", _RESETS),
    ("cl[ear] cou[nters]", _RESETS),
    ("cl[ear] arp[-cache]", _RESETS),
    ("cl[ear] li[ne]", "disconnects a terminal line"),
)
_RULES = DenyList()
_ANY_FAMILY = ""  # every vendor's rules: the message names no device yet


def device_command(text: str) -> str | None:
    """What the device command `text` would do (why it is refused), or None when `text` is not
    one (a read, a question or a change asked for in words)."""
    lines = text.strip().splitlines()
    first = lines[0] if lines else ""
    for violation in _RULES.check([first], _ANY_FAMILY):
        if violation.rule in _EXEC_RULES:
            return violation.reason
    exec_only = matching_rule(first, _EXEC_ONLY)
    if exec_only is not None:
        return exec_only[1]
    words = first.split()
    if words and words[0].casefold() == "do":
        return "runs an exec command from configuration mode"
    return None
