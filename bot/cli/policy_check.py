"""`labbot policy check USER DEVICE…`: who may approve what, and why, in plain lines.

`explain` is pure; `check_lines` gathers the facts (the settings' policy, the person's Slack
user groups when Slack is configured)."""

from __future__ import annotations

from collections.abc import Sequence

from bot import messages
from bot.policy.approvers import policy_from
from bot.policy.rules import Person, Place, Policy, named_by, owners_of, place_rule
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
    policy = policy_from(settings)
    found = set(groups) | await _slack_groups(settings, policy, user)
    person = Person(user, frozenset(found), power)
    return explain(policy, person, devices, Place(channel or messages.POLICY_ANY_CHANNEL, direct))


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
    lines = [
        _summary(policy),
        messages.POLICY_WHO_WHERE.format(who=_who(person), where=_where(place)),
    ]
    allowed, reason = place_rule(policy, place)
    if reason:
        lines.append(messages.POLICY_PLACE_CLOSED.format(reason=reason))
    elif allowed is None:
        lines.append(messages.POLICY_PLACE_OPEN)
    else:
        listed = " ".join(allowed) or messages.POLICY_NOBODY
        lines.append(messages.POLICY_PLACE[named_by(person, allowed)].format(listed=listed))
    if policy.requesters:
        lines.append(messages.POLICY_REQUESTS[named_by(person, policy.requesters)])
    lines += [
        messages.POLICY_DEVICE.format(device=device, verdict=_device_line(policy, person, device))
        for device in devices
    ]
    lines.append(messages.POLICY_OWN_CHANGES[policy.allow_self_approval])
    return lines


def _summary(policy: Policy) -> str:
    if not policy.has_rules:
        rules = messages.POLICY_NO_RULES
    else:
        parts = []
        if policy.owners:
            parts.append(messages.POLICY_OWNERS_FILE.format(count=len(policy.owners)))
        if policy.approvers:
            parts.append(messages.POLICY_APPROVERS.format(count=len(policy.approvers)))
        if policy.approvers_by_channel:
            places = ", ".join(sorted(policy.approvers_by_channel))
            parts.append(messages.POLICY_PLACE_LISTS.format(places=places))
        rules = ", ".join(parts)
    return messages.POLICY_RULES.format(
        rules=rules, template=policy.template_approvals, push=policy.push_approvals
    )


def _who(person: Person) -> str:
    facts = [*sorted(person.groups)]
    if person.power:
        facts.append(messages.POLICY_POWER.format(power=person.power))
    return f"{person.id} ({', '.join(facts)})" if facts else person.id


def _where(place: Place) -> str:
    return messages.POLICY_DIRECT.format(channel=place.channel) if place.direct else place.channel


def _device_line(policy: Policy, person: Person, device: str) -> str:
    if not policy.owners:
        return messages.POLICY_NO_OWNERS_FILE
    rule = owners_of(policy, device)
    if rule is None:
        return messages.POLICY_NO_OWNER_LINE
    shown = f"`{rule.glob} {' '.join(rule.owners)}`"
    return messages.POLICY_OWNER[named_by(person, rule.owners)].format(rule=shown)
