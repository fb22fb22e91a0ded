"""The deny-list policy per platform: which rule table a platform family uses, its exec
prefixes, whether its devices may read 7 bits per character, and what a template's `allow:`
list may name (rule ids and families)."""

from __future__ import annotations

import functools
from dataclasses import dataclass

from workflow.denylist import eos, frr, ios, junos, vrp
from workflow.denylist.inside import SECTIONS
from workflow.denylist.matching import Pattern, is_negation, parse, strip_prefixes
from workflow.denylist.rules import ALLOWABLE_FAMILIES, FAMILY_TITLES, WHOLE_LINE_RULES, Rule
from workflow.model import platform_family

__all__ = [
    "PLATFORMS",
    "PlatformRules",
    "allowance_errors",
    "describe_allowance",
    "platform_rules",
    "rules_for",
]

# policy name -> (its rules, its exec-from-config prefixes); PLATFORMS: platform family -> policy
_TABLES: dict[str, tuple[tuple[Rule, ...], tuple[str, ...]]] = {
    "ios": (ios.RULES, ("do",)),
    "eos": (eos.RULES, ("do",)),
    "frr": (frr.RULES, ("do",)),
    "junos": (junos.RULES, ("run",)),
    "vrp": (vrp.RULES, ()),
}
SEVEN_BIT = ("ios",)  # policies of devices that may read 7 bits per character (and unknown)
PLATFORMS = {
    "cisco_ios": "ios",
    "cisco_xe": "ios",
    "cisco_xr": "ios",
    "cisco_nxos": "ios",
    "arista_eos": "eos",
    "frr": "frr",
    "juniper_junos": "junos",
    "juniper": "junos",
    "huawei_vrp": "vrp",
    "huawei": "vrp",
    "hp_comware": "vrp",
}


@dataclass(frozen=True)
class PlatformRules:
    """One platform's rules, indexed by the first two letters of their first word."""

    policy: str | None  # `ios`, `eos`, …; None: an unknown platform, under every policy
    prefixes: tuple[str, ...]
    index: dict[str, list[tuple[Pattern, Rule]]]

    @property
    def seven_bit(self) -> bool:
        """Whether its devices may read 7 bits per character (IOS's `exec-character-bits 7`
        default; an unknown platform may be one)."""
        return self.policy in (None, *SEVEN_BIT)

    def match(self, tokens: list[str]) -> Rule | None:
        """The first rule the line's words (prefixes removed) match, or None."""
        tokens = strip_prefixes(tokens, self.prefixes)
        if not tokens:
            return None
        candidates = list(self.index.get(tokens[0][:2], ()))
        if len(tokens) > 1 and is_negation(tokens[0]):
            candidates += [c for c in self.index.get(tokens[1][:2], ()) if c[0].negatable]
        return next((rule for pattern, rule in candidates if pattern.matches(tokens)), None)


@functools.cache
def rules_for(family: str) -> PlatformRules:
    """The rules of a platform family; an unknown family gets every platform's rules."""
    name = PLATFORMS.get(platform_family(family))
    tables = [_TABLES[name]] if name else list(_TABLES.values())
    index: dict[str, list[tuple[Pattern, Rule]]] = {}
    seen: set[tuple[str, str]] = set()
    for rules, _ in tables:
        for rule in rules:
            if (rule.id, rule.spec) not in seen:
                seen.add((rule.id, rule.spec))
                pattern = parse(rule.spec)
                index.setdefault(pattern.key, []).append((pattern, rule))
    prefixes = tuple(dict.fromkeys(p for _, table_prefixes in tables for p in table_prefixes))
    return PlatformRules(name, prefixes, index)


def platform_rules(platform: str) -> tuple[Rule, ...] | None:
    """The rules of a platform policy (`ios`, `eos`, `frr`, `junos`, `vrp`) or of a platform
    family (`cisco_ios`, …), in the order they are tried; None when neither is known."""
    name = PLATFORMS.get(platform_family(platform), platform)
    table = _TABLES.get(name)
    return None if table is None else table[0]


def _every_rule() -> list[Rule]:
    tables = [rules for rules, _ in _TABLES.values()] + [[s.rule for s in SECTIONS.values()]]
    tables.append(list(WHOLE_LINE_RULES))
    return [rule for rules in tables for rule in rules]


@functools.cache
def allowable_rules(restoring: bool = False) -> dict[str, Rule]:
    """Rule id -> its first rule, for every rule a template may allow (`restoring`: a rollback,
    which may also restore a line as the device printed it)."""
    found: dict[str, Rule] = {}
    for rule in _every_rule():
        if rule.allowable or (restoring and rule.restorable):
            found.setdefault(rule.id, rule)
    return found


def allowance_errors(allow: object, restoring: bool = False) -> list[str]:
    """What is wrong with a template's (`restoring`: a rollback's) `allow:` list: each entry a
    rule id or a family."""
    if not isinstance(allow, list) or not all(isinstance(entry, str) for entry in allow):
        return ["`allow` must be a list of deny-list rule ids or families"]
    known = allowable_rules(restoring)
    return [
        f"`allow: {entry}` names no deny-list rule or family a template may allow "
        f"(families: {', '.join(ALLOWABLE_FAMILIES)}; rules: `labbot policy deny PLATFORM`)"
        for entry in allow
        if entry not in known and entry not in ALLOWABLE_FAMILIES
    ]


def describe_allowance(entry: str) -> str:
    """`logging-host (exfiltration): sends the device's logs to another host`, or a family."""
    for family in ALLOWABLE_FAMILIES:
        if entry == family:
            return f"{entry}: every rule of the family {FAMILY_TITLES[family]}"
    rule = allowable_rules(restoring=True).get(entry)
    if rule is None:
        return f"{entry}: names no deny-list rule (refused)"
    return f"{entry} ({FAMILY_TITLES[rule.family]}): {rule.reason}"
