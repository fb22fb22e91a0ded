"""`labbot policy deny [PLATFORM]`: the deny-list policy as people read it, by family: each
rule's id (what a template's `allow:` names), its words and why it refuses them. Pure."""

from __future__ import annotations

from collections.abc import Sequence

from bot import messages
from workflow.denylist.inside import SECTIONS
from workflow.denylist.platform_rules import PLATFORMS, platform_rules
from workflow.denylist.rules import FAMILY_TITLES, WHOLE_LINE_RULES, Rule

__all__ = ["deny_lines"]

POLICIES = ("ios", "eos", "frr", "junos", "vrp")


def deny_lines(platform: str, extra: Sequence[str]) -> list[str]:
    """The policy of `platform` (a policy name or a platform family) by family; the section
    and whole-line rules; the site's own rules (LABBOT_DENY_EXTRA)."""
    rules = platform_rules(platform)
    if rules is None:
        known = ", ".join([*POLICIES, *PLATFORMS])
        return [messages.DENY_UNKNOWN_PLATFORM.format(platform=platform, known=known)]
    every = [*rules, *(s.rule for s in SECTIONS.values()), *WHOLE_LINE_RULES]
    lines = [messages.DENY_POLICY.format(platform=platform)]
    for family, title in FAMILY_TITLES.items():
        lines.append(f"{title} ({family})")
        lines.extend(_row(rule) for rule in every if rule.family == family)
    lines.append(messages.DENY_SITE_RULES)
    lines.extend(f"  {pattern}" for pattern in extra)
    return lines


def _row(rule: Rule) -> str:
    if rule.restorable:
        note = messages.DENY_ROLLBACK_ONLY
    else:
        note = "" if rule.allowable else messages.DENY_NEVER_ALLOWED
    return f"  {rule.id:<20} {rule.spec:<40} {rule.reason}{note}"
