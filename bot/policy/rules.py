"""Who may start a change and who may decide a gate: pure rules over settings and facts.

Deny by default. Four-eyes: the requester never counts towards approvals (unless
`allow_self_approval`). N-of-M on both gates: N distinct people other than the requester.
Approvers by device from an owners file (`LABBOT_OWNERS`, like CODEOWNERS: the last matching
glob wins), else by place (`LABBOT_APPROVERS`, `LABBOT_APPROVERS_BY_CHANNEL`). Once any rule
exists, a device with no owner or a place with no rule refuses, naming why. With no rule at
all anyone in a channel or room except the requester may approve; a direct message always needs
an explicit rule.

A "who" token is a user id (`U0123`, `@alice:example.org`, `console:alice`), a Slack user group
handle (`@netops`) or a Matrix power level in the room (`power>=50`). What the platform says
about a person (groups, power level) arrives as a `Person`; this module never asks anyone. Ids
are compared as their platform compares them (`adapters.user_ids.canonical_user_id`);
two ids a person would read as one (`look_alike_key`) never count as two approvals, and a
look-alike of the requester is the requester for four-eyes.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase

from adapters.user_ids import (
    canonical_user_id,
    is_matrix_user_id,
    look_alike_key,
    meant_as_matrix_user,
)
from base.vocabulary import Choice
from bot import messages

__all__ = ["Person", "Place", "Policy", "named_by", "owners_of", "place_rule"]

POWER = re.compile(r"^power>=(\d+)$")


class OwnersError(ValueError):
    """An owners file line that is not `GLOB WHO [WHO …]`."""


@dataclass(frozen=True)
class OwnerRule:
    glob: str  # device-name glob, matched case-sensitively (`R*`, `core-*`, `*`)
    owners: tuple[str, ...]  # who tokens


@dataclass(frozen=True)
class Person:
    """Someone deciding, with what their platform says about them where they decide."""

    id: str
    groups: frozenset[str] = frozenset()  # Slack user group handles, `@netops`
    power: int = 0  # Matrix power level in the room


@dataclass(frozen=True)
class Place:
    """Where a decision is made: a channel/room, or a direct message with the bot."""

    channel: str
    direct: bool = False


@dataclass(frozen=True)
class Policy:
    approvers: tuple[str, ...] = ()  # everywhere, direct messages included
    approvers_by_channel: Mapping[str, Sequence[str]] = field(default_factory=dict)
    owners: tuple[OwnerRule, ...] = ()  # device globs -> who; the last match wins
    requesters: tuple[str, ...] = ()  # empty = anyone may start changes
    allow_self_approval: bool = False
    template_approvals: int = 1  # N of the N-of-M rule, template gate
    push_approvals: int = 1  # N of the N-of-M rule, params (push) gate
    lab: str = ""  # the labs file's lab these rules are (its people: LABBOT_LABS); "": the one
    # the lab names its approvers (approvers, instructors, students); else `approvers` are the
    # deployment's LABBOT_APPROVERS, and a refusal says so
    lab_names_approvers: bool = False
    # students of the other pods of its group -> their own pod (refused here, told where)
    students_elsewhere: Mapping[str, str] = field(default_factory=dict)

    @property
    def has_rules(self) -> bool:
        return bool(self.approvers or self.approvers_by_channel or self.owners)

    def required_approvals(self, gate: str) -> int:
        return self.push_approvals if gate in ("params", "rollback") else self.template_approvals

    def who_tokens(self) -> tuple[str, ...]:
        """Every who-token any rule names."""
        tokens = [*self.approvers, *self.requesters, *(t for r in self.owners for t in r.owners)]
        tokens += [t for who in self.approvers_by_channel.values() for t in who]
        return tuple(tokens)

    def groups_named(self) -> frozenset[str]:
        """Every user group a rule names: the only ones worth asking the platform about."""
        return frozenset(t for t in self.who_tokens() if is_group(t))

    @property
    def reads_power(self) -> bool:
        """Whether a rule names a power level (then the platform is asked for it)."""
        return any(POWER.match(t) for t in self.who_tokens())


@dataclass(frozen=True)
class Shortfall:
    """What a gate still needs: more people, and an approving owner of these devices."""

    people: int
    devices: tuple[str, ...] = ()

    @property
    def settled(self) -> bool:
        return self.people <= 0 and not self.devices


def is_group(token: str) -> bool:
    return token.startswith("@") and ":" not in token


def matches(person: Person, token: str) -> bool:
    """Whether one who-token names `person`."""
    power = POWER.match(token)
    if power:
        return person.power >= int(power.group(1))
    if is_group(token):
        return token in person.groups
    return same_person(token, person.id)


def same_person(one: str, other: str) -> bool:
    """Whether two user ids name one person, as their platform compares ids."""
    return canonical_user_id(one) == canonical_user_id(other)


def looks_like(one: str, other: str) -> bool:
    """Whether a person would read two user ids as one name (`@BOB:hs`, `@bob:hs`)."""
    return look_alike_key(one) == look_alike_key(other)


def named_by(person: Person, tokens: Iterable[str]) -> bool:
    return any(matches(person, token) for token in tokens)


def parse_owners(text: str) -> tuple[OwnerRule, ...]:
    """`GLOB WHO [WHO …]` per line, `#` comments; raises OwnersError naming the line."""
    rules = []
    for number, raw in enumerate(text.splitlines(), 1):
        words = raw.split("#", 1)[0].split()
        if not words:
            continue
        if len(words) < 2:
            raise OwnersError(f"line {number}: {raw.strip()!r} names no owner (GLOB WHO …)")
        for token in words[1:]:
            if meant_as_matrix_user(token) and not is_matrix_user_id(token):
                said = messages.NOT_A_MATRIX_USER_ID.format(token=token)
                raise OwnersError(f"line {number}: {said}")
        rules.append(OwnerRule(words[0], tuple(words[1:])))
    return tuple(rules)


def owners_of(policy: Policy, device: str) -> OwnerRule | None:
    """The rule that owns `device`: the last matching one, as in CODEOWNERS."""
    found = None
    for rule in policy.owners:
        if fnmatchcase(device, rule.glob):
            found = rule
    return found


def place_rule(policy: Policy, place: Place) -> tuple[tuple[str, ...] | None, str]:
    """(who may decide here, or None for "no restriction here"; the reason when refused).

    The reason is non-empty only when nobody may decide in this place."""
    if place.channel in policy.approvers_by_channel:
        return tuple(policy.approvers_by_channel[place.channel]), ""
    if policy.approvers:
        return policy.approvers, ""
    if place.direct:
        return (), messages.NO_DIRECT_RULE
    if policy.approvers_by_channel and not policy.owners:
        return (), messages.NO_APPROVERS_HERE.format(channel=place.channel)
    return None, ""


def refuse_request(policy: Policy, person: Person, place: Place) -> str | None:
    """The reason `person` may not start a change — or read the lab — here (not a requester,
    or nobody could approve here), or None."""
    if policy.requesters and not named_by(person, policy.requesters):
        return _other_pod(policy, person) or messages.NOT_A_REQUESTER
    return place_rule(policy, place)[1] or None


def refuse_curation(policy: Policy, *, person: Person, place: Place) -> str | None:
    """The reason `person` may not save or pin templates here (approvers only), or None."""
    allowed, reason = place_rule(policy, place)
    if reason:
        return reason
    if allowed is not None and not named_by(person, allowed):
        return messages.NOT_A_CURATOR
    return None


def refuse_decision(
    policy: Policy,
    *,
    person: Person,
    places: Sequence[Place],
    requester_id: str,
    choice: Choice,
    targets: Collection[str],
) -> str | None:
    """The reason `person` may not make this decision, or None.

    `places`: where the decision is made, then (for a rollback) where the undone change was
    made: the rules of each apply. The requester may always cancel or send back their own
    change; approving it takes someone else unless self-approval is allowed."""
    own = same_person(person.id, requester_id)
    if own and choice != "approve":
        return None
    for place in places:
        reason = _refuse_place(policy, person, place)
        if reason:
            return reason
    reason = _refuse_owner(policy, person, targets)
    if reason:
        return reason
    if looks_like(person.id, requester_id) and not policy.allow_self_approval:
        return messages.FOUR_EYES
    return None


def _refuse_place(policy: Policy, person: Person, place: Place) -> str | None:
    allowed, reason = place_rule(policy, place)
    if reason:
        return reason
    if allowed is not None and not named_by(person, allowed):
        listed = place.channel in policy.approvers_by_channel
        where = "LABBOT_APPROVERS_BY_CHANNEL" if listed else "LABBOT_APPROVERS"
        if policy.lab and not listed:
            said = (
                messages.LAB_APPROVERS if policy.lab_names_approvers else messages.LAB_NO_APPROVERS
            )
            where = said.format(lab=policy.lab)
        return _other_pod(policy, person) or messages.NOT_AN_APPROVER.format(
            channel=place.channel, setting=where
        )
    return None


def _other_pod(policy: Policy, person: Person) -> str | None:
    """A student of another pod of the group: told theirs is elsewhere."""
    for student, pod in policy.students_elsewhere.items():
        if same_person(student, person.id):
            return messages.STUDENT_OF_OTHER_POD.format(pod=pod, lab=policy.lab)
    return None


def _refuse_owner(policy: Policy, person: Person, targets: Collection[str]) -> str | None:
    if not policy.owners:
        return None
    unowned = sorted(d for d in targets if owners_of(policy, d) is None)
    if unowned:
        return messages.NO_OWNER.format(devices=", ".join(unowned))
    if not owned_by(policy, person, targets):
        return messages.NOT_AN_OWNER.format(devices=", ".join(sorted(targets)))
    return None


def owned_by(policy: Policy, person: Person, targets: Collection[str]) -> tuple[str, ...]:
    """The targets `person` owns (all of them when there is no owners file)."""
    if not policy.owners:
        return tuple(sorted(targets))
    return tuple(
        sorted(d for d in targets if (r := owners_of(policy, d)) and named_by(person, r.owners))
    )


def shortfall(
    policy: Policy,
    *,
    gate: str,
    approvers: Sequence[Person],
    requester_id: str,
    targets: Collection[str],
) -> Shortfall:
    """What the gate still needs after these approvals: N distinct people who count (the
    requester does not, unless self-approval is allowed), covering an owner of every target."""
    counted = {
        look_alike_key(p.id): p
        for p in approvers
        if policy.allow_self_approval or not looks_like(p.id, requester_id)
    }
    covered = {d for p in counted.values() for d in owned_by(policy, p, targets)}
    return Shortfall(
        people=policy.required_approvals(gate) - len(counted),
        devices=tuple(sorted(set(targets) - covered)) if policy.owners else (),
    )
