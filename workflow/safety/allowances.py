"""Which deny-list rules a template may break: only what the lab's own templates allow.

A built-in or saved template may list rule ids or families in its YAML (`allow:
[logging-host]`); that list is part of its sha256, shown at the template gate ("this template
may: …"), recorded with the change in the audit chain (`template_uses`) and honoured at the
preview and again just before the push. A template written for the change (the LLM's, or a
library template the LLM rewrote on Modify) cannot allow anything: an `allow` in its answer is
an error fed back to it, and its lines are judged as if it had none. A rollback (built by
labbot from the configuration saved before the change, never by the LLM) may break the rules its
own lines break: undoing `router ospf 1` is `no router ospf 1`. Its allowances are computed from
its lines and shown at its gate like a template's. Rules that change how the device reads the
next lines (`end`, `conf t`, `?`) and unreadable lines (a control character: the device reads
it as an editing key) are never allowed, a rollback's included.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from workflow.denylist.platform_rules import allowance_errors, describe_allowance
from workflow.safety.deny import DenyList

__all__ = ["allowance_problems", "allowance_view", "allowed_by", "restoring_allowances"]

# proposals built from the lab's own templates or backups, never from the LLM's answer
LAB_SOURCES = ("library", "saved", "rollback")


def allowed_by(template: Mapping[str, Any]) -> list[str]:
    """The rule ids and families `template` may break: its `allow` when it is the lab's own
    (built-in or saved), else none."""
    if template.get("source") not in LAB_SOURCES:
        return []
    allow = template.get("allow") or []
    return [entry for entry in allow if isinstance(entry, str)]


def allowance_problems(template: Mapping[str, Any]) -> list[str]:
    """What is wrong with a proposal's `allow`: any at all on a template not the lab's own,
    or an entry naming no rule or family."""
    allow = template.get("allow")
    if allow is None:
        return []
    if template.get("source") not in LAB_SOURCES:
        return [
            f"a template written for this change cannot allow deny-list rules (it asked for "
            f"{allow!r}); only the lab's built-in or saved templates can: remove `allow`"
        ]
    return allowance_errors(allow, restoring=template.get("source") == "rollback")


def allowance_view(template: Mapping[str, Any]) -> list[str]:
    """What the template may do that the deny-list refuses, one line per allowance."""
    return [describe_allowance(entry) for entry in allowed_by(template)]


def restoring_allowances(
    deny_list: DenyList, plan: Mapping[str, Sequence[str]], families: Mapping[str, str]
) -> list[str]:
    """The rules a rollback's lines (device -> lines) break, which it may: they bring each
    device back to its configuration from before the change. Never an unallowable one."""
    return sorted(
        {
            hit.rule
            for name, lines in plan.items()
            for hit in deny_list.check(lines, families[name])
            if hit.allowable or hit.restorable
        }
    )
