"""`labbot policy check USER DEVICE…`: who may approve what, and why, in plain lines.

`explain` is pure; `check_lines` gathers the facts (the settings' policy, the person's Slack
user groups when Slack is configured)."""

from __future__ import annotations

from collections.abc import Sequence

from bot.policy import Person, Place, Policy, named_by, owners_of, place_rule
from bot.settings import Settings


async def check_lines(
    settings: Settings,
    user: str,
    devices: Sequence[str],
    *,
    channel: str,
    direct: bool,
    groups: Sequence[str],
    power: int,
) -> list[str]:
    from bot.wiring import policy_from

    policy = policy_from(settings)
    found = set(groups) | await _slack_groups(settings, policy, user)
    person = Person(user, frozenset(found), power)
    return explain(policy, person, devices, Place(channel or "(any channel)", direct))


async def _slack_groups(settings: Settings, policy: Policy, user: str) -> set[str]:
    """The rules' user groups this Slack user is in (none asked without a Slack token)."""
    if settings.slack_bot_token is None or not policy.groups_named():
        return set()
    from adapters.slack.adapter import web_client
    from adapters.slack.groups import UserGroups

    token = settings.slack_bot_token.get_secret_value()
    groups = UserGroups(web_client(token, settings.slack_api_url))
    return {g for g in policy.groups_named() if user in await groups.members(g)}


def explain(policy: Policy, person: Person, devices: Sequence[str], place: Place) -> list[str]:
    """One line on the rules, one on the place, one per device, one on four-eyes."""
    lines = [_summary(policy), f"{_who(person)} in {_where(place)}:"]
    allowed, reason = place_rule(policy, place)
    if reason:
        lines.append(f"  place: nobody may decide here — {reason}")
    elif allowed is None:
        lines.append("  place: anyone here may decide (no list for this place)")
    else:
        verdict = "may decide here" if named_by(person, allowed) else "may NOT decide here"
        lines.append(f"  place: {verdict} (listed: {' '.join(allowed) or 'nobody'})")
    if policy.requesters:
        may = "may" if named_by(person, policy.requesters) else "may NOT"
        lines.append(f"  requests: {may} start changes (LABBOT_REQUESTERS)")
    lines += [f"  {device}: {_device_line(policy, person, device)}" for device in devices]
    if policy.allow_self_approval:
        lines.append("  own changes: their own approval counts (LABBOT_ALLOW_SELF_APPROVAL=true)")
    else:
        lines.append("  own changes: someone else must approve them (four-eyes)")
    return lines


def _summary(policy: Policy) -> str:
    if not policy.has_rules:
        rules = "no rule (anyone in a channel/room except the requester; no direct messages)"
    else:
        parts = []
        if policy.owners:
            parts.append(f"owners file ({len(policy.owners)} rule(s))")
        if policy.approvers:
            parts.append(f"LABBOT_APPROVERS ({len(policy.approvers)})")
        if policy.approvers_by_channel:
            parts.append(f"lists for {', '.join(sorted(policy.approvers_by_channel))}")
        rules = ", ".join(parts)
    return (
        f"Rules: {rules}. Approvals needed: template {policy.template_approvals}, "
        f"push {policy.push_approvals} (distinct people other than the requester)."
    )


def _who(person: Person) -> str:
    facts = [*sorted(person.groups)]
    if person.power:
        facts.append(f"power {person.power}")
    return f"{person.id} ({', '.join(facts)})" if facts else person.id


def _where(place: Place) -> str:
    return f"a direct message ({place.channel})" if place.direct else place.channel


def _device_line(policy: Policy, person: Person, device: str) -> str:
    if not policy.owners:
        return "no owners file: the place decides"
    rule = owners_of(policy, device)
    if rule is None:
        return "nobody may approve — no line of LABBOT_OWNERS matches it"
    shown = f"`{rule.glob} {' '.join(rule.owners)}`"
    if named_by(person, rule.owners):
        return f"may approve — an owner by {shown}"
    return f"may NOT approve — owners by {shown}"
