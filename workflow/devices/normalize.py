"""How each platform rewrites the configuration lines it accepts, so that verification compares
what was pushed with what the device shows: one normaliser per platform, in this module.

- every platform: OSPF areas are shown as typed, dotted or not (`area 0` / `area 0.0.0.0`):
  both sides are compared in decimal;
- IOS / IOS-XE / EOS: abbreviations are expanded (`int Gi0/1`, `desc`, `ip add`, `no shut`),
  interface names made canonical (netutils); secrets are shown hashed (`enable secret 9 $9$…`,
  `username u secret 9 …`, `password 7 …`), so only the line up to the secret is compared;
  `no shutdown` is not shown at all (a `no X` line holds when no `X` is left, see diffing);
- FRR: `router-id` under `router ospf` is shown as `ospf router-id`; `network`,
  `redistribute`, `aggregate-address` and `maximum-paths` typed under `router bgp` are shown
  under its `address-family ipv4 unicast`; `exit` lines are never shown (diffing drops them).

hier_config's drivers cover negation and ordering (diffs and rollbacks use them); they do not
know these rewrites, nor FRR, so they are declared here as data.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Sequence
from dataclasses import dataclass

from workflow.model import platform_family


@dataclass(frozen=True)
class Rewrite:
    """A line the device shows differently. `parent`: regex its section header must match
    (None: anywhere). `shown`: the replacement (re.sub template). `under`: the section the
    device files it under, inside the same parent. `prefix`: a secret follows; only the
    text up to it is compared."""

    line: str
    shown: str
    parent: str | None = None
    under: str | None = None
    prefix: bool = False


@dataclass(frozen=True)
class ShownLine:
    """Where and how the device shows one pushed line."""

    parents: tuple[str, ...]
    text: str
    prefix: bool = False  # `text` is what a shown line starts with (a hashed secret follows)


SECRETS = (
    Rewrite(r"^(enable (?:secret|password))(?: \d)? \S+$", r"\1 "),
    Rewrite(r"^(username \S+(?: privilege \d+)? (?:secret|password))(?: \d)? \S+$", r"\1 "),
    Rewrite(r"^(password|key-string|ip ospf authentication-key)(?: \d)? \S+$", r"\1 "),
)
IOS_REWRITES = tuple(Rewrite(rule.line, rule.shown, prefix=True) for rule in SECRETS)
BGP_AF = r"^(network|redistribute|aggregate-address|maximum-paths) .*"
NORMALISERS: dict[str, tuple[Rewrite, ...]] = {
    "cisco_ios": IOS_REWRITES,
    "cisco_xe": IOS_REWRITES,
    "arista_eos": IOS_REWRITES,
    "frr": (
        Rewrite(r"^router-id (\S+)$", r"ospf router-id \1", parent=r"^router ospf\b"),
        Rewrite(BGP_AF, r"\g<0>", parent=r"^router bgp\b", under="address-family ipv4 unicast"),
    ),
}

# IOS-style abbreviations: the first word, and the word after `ip`, by unique prefix.
FIRST_WORDS = [
    "interface",
    "description",
    "shutdown",
    "hostname",
    "router",
    "network",
    "neighbor",
    "redistribute",
    "area",
    "passive-interface",
    "banner",
    "logging",
    "username",
    "enable",
    "line",
    "access-list",
    "switchport",
    "vlan",
    "standby",
    "vrrp",
    "spanning-tree",
    "snmp-server",
    "service",
    "clock",
    "router-id",
]
IP_WORDS = [
    "address",
    "route",
    "ospf",
    "domain-name",
    "name-server",
    "access-group",
    "nat",
    "helper-address",
]
IOS_LIKE = frozenset({"cisco_ios", "cisco_xe", "arista_eos"})
_AREA = re.compile(r"\barea (\d+\.\d+\.\d+\.\d+)\b")


def normalize_text(line: str) -> str:
    """What both sides are compared in: OSPF areas in decimal."""
    return _AREA.sub(lambda m: f"area {int(ipaddress.IPv4Address(m[1]))}", line)


def shown_line(platform: str, parents: Sequence[str], text: str) -> ShownLine:
    """How `platform` shows the pushed line `text` under `parents` (all already expanded)."""
    family = platform_family(platform)
    for rule in NORMALISERS.get(family, ()):
        if rule.parent is not None and not (parents and re.search(rule.parent, parents[-1])):
            continue
        if re.search(rule.line, text):
            shown = re.sub(rule.line, rule.shown, text)
            where = (*parents, rule.under) if rule.under else tuple(parents)
            return ShownLine(where, shown, rule.prefix)
    return ShownLine(tuple(parents), text)


def expand(platform: str, line: str) -> str:
    """An IOS-like line with its abbreviations expanded (`int g0/1` stays: `g` is ambiguous on
    a real router too); other platforms' lines as they are. Indentation is kept."""
    if platform_family(platform) not in IOS_LIKE or not line.strip():
        return line
    indent = line[: len(line) - len(line.lstrip())]
    words = line.split()
    negated = words[0] == "no" and len(words) > 1
    start = 1 if negated else 0
    words[start] = _unique(words[start], FIRST_WORDS)
    if words[start] == "ip" and len(words) > start + 1:
        words[start + 1] = _unique(words[start + 1], IP_WORDS)
    if words[start] == "interface" and len(words) > start + 1:
        # netutils.interface loads its interface tables (~0.35 s): on the first use, not at start
        from netutils.interface import canonical_interface_name

        words[start + 1] = canonical_interface_name(words[start + 1])
    return indent + " ".join(words)


def _unique(word: str, vocabulary: Sequence[str]) -> str:
    if word in vocabulary:
        return word
    matches = [known for known in vocabulary if known.startswith(word.lower())]
    return matches[0] if len(matches) == 1 else word
