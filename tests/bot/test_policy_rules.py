"""The approval policy, table-driven: places, owners, four-eyes, N-of-M."""

from __future__ import annotations

import pytest

from bot.messages import FOUR_EYES
from bot.policy.rules import (
    OwnersError,
    Person,
    Place,
    Policy,
    parse_owners,
    refuse_curation,
    refuse_decision,
    refuse_request,
    shortfall,
)

OWNERS = parse_owners(
    """
    # device glob   who may approve
    *               U9
    R*              @netops U7
    R1              U2                    # the last match wins, as in CODEOWNERS
    SW*             @alice:hs power>=50
    lab-*           U5
    """
)
CHANNEL, DM = Place("C1"), Place("D1", direct=True)


def decide(
    policy: Policy,
    actor: str | Person,
    *,
    choice: str = "approve",
    place: Place = CHANNEL,
    targets: tuple[str, ...] = ("R1",),
    origin: Place | None = None,
) -> str | None:
    person = actor if isinstance(actor, Person) else Person(actor)
    return refuse_decision(
        policy,
        person=person,
        places=[place] + ([origin] if origin else []),
        requester_id="U1",
        choice=choice,  # type: ignore[arg-type]
        targets=targets,
    )


@pytest.mark.parametrize(
    ("policy", "actor", "options", "refused"),
    [
        # no rule at all: anyone in a channel except the requester; no direct messages
        (Policy(), "U2", {}, None),
        (Policy(), "U1", {}, "four-eyes"),
        (Policy(allow_self_approval=True), "U1", {}, None),
        (Policy(), "U2", {"place": DM}, "direct messages need an explicit rule"),
        (Policy(allow_self_approval=True), "U1", {"place": DM}, "direct messages"),
        # the requester may always cancel or send back their own change
        (Policy(), "U1", {"choice": "cancel"}, None),
        (Policy(approvers=("U2",)), "U1", {"choice": "modify"}, None),
        # global and per-place lists
        (Policy(approvers=("U2",)), "U2", {}, None),
        (Policy(approvers=("U2",)), "U3", {}, "not an approver in C1 (LABBOT_APPROVERS)"),
        (Policy(approvers=("U2",)), "U3", {"choice": "cancel"}, "not an approver"),
        (Policy(approvers=("U2",)), "U2", {"place": DM}, None),  # an explicit rule
        (Policy(approvers_by_channel={"C1": ["U3"]}), "U3", {}, None),
        (
            Policy(approvers=("U2",), approvers_by_channel={"C1": ["U3"]}),
            "U2",
            {},
            "LABBOT_APPROVERS_BY_CHANNEL",
        ),
        (
            Policy(approvers_by_channel={"C9": ["U3"]}),
            "U3",
            {},
            "no approvers are set for C1",
        ),
        (Policy(approvers_by_channel={"C9": ["U3"]}), "U3", {"place": DM}, "direct messages"),
        (Policy(approvers_by_channel={"D1": ["U3"]}), "U3", {"place": DM}, None),
        # a rollback: the undone change's place rules apply too
        (
            Policy(approvers_by_channel={"sandbox": ["U4"], "C1": ["U3"]}),
            "U4",
            {"place": Place("sandbox"), "origin": CHANNEL},
            "not an approver in C1",
        ),
        # owners: an owner of the targets; every target owned
        (Policy(owners=OWNERS), "U2", {}, None),
        (Policy(owners=OWNERS), "U7", {}, "you own none of R1"),  # R1's own line wins
        (Policy(owners=OWNERS), "U7", {"targets": ("R2",)}, None),
        (Policy(owners=OWNERS), Person("U8", frozenset({"@netops"})), {"targets": ("R2",)}, None),
        (Policy(owners=OWNERS), "U8", {"targets": ("R2",)}, "you own none of R2"),
        (Policy(owners=OWNERS), "U9", {"targets": ("X1",)}, None),  # `*`
        (Policy(owners=OWNERS[1:]), "U2", {"targets": ("R1", "X1")}, "X1 has no owner"),
        (Policy(owners=OWNERS), Person("U6", power=50), {"targets": ("SW1",)}, None),
        (Policy(owners=OWNERS), Person("U6", power=49), {"targets": ("SW1",)}, "own none"),
        (Policy(owners=OWNERS), "@alice:hs", {"targets": ("SW1",)}, None),
        # with owners and no place list: channels are covered, direct messages are not
        (Policy(owners=OWNERS), "U2", {"place": DM}, "direct messages"),
        (Policy(owners=OWNERS, approvers_by_channel={"C9": ["U3"]}), "U2", {}, None),
        # an owner who is the requester still needs someone else
        (Policy(owners=parse_owners("R1 U1")), "U1", {}, "four-eyes"),
    ],
)
def test_who_may_decide(
    policy: Policy, actor: str | Person, options: dict[str, object], refused: str | None
) -> None:
    reason = decide(policy, actor, **options)  # type: ignore[arg-type]
    if refused is None:
        assert reason is None
    else:
        assert reason is not None and refused in reason


@pytest.mark.parametrize(
    ("policy", "gate", "approvers", "targets", "people", "devices"),
    [
        (Policy(), "template", ["U2"], ("R1",), 0, ()),
        (Policy(), "params", ["U2"], ("R1",), 0, ()),
        (Policy(push_approvals=2), "params", ["U2"], ("R1",), 1, ()),
        (Policy(push_approvals=2), "params", ["U1", "U2"], ("R1",), 1, ()),  # requester: no
        (
            Policy(push_approvals=2, allow_self_approval=True),
            "params",
            ["U1", "U2"],
            ("R1",),
            0,
            (),
        ),
        (Policy(template_approvals=3), "template", ["U2", "U3"], ("R1",), 1, ()),
        (Policy(template_approvals=3), "params", ["U2"], ("R1",), 0, ()),
        (Policy(push_approvals=2), "params", ["U2", "U2"], ("R1",), 1, ()),  # distinct people
        # owners: an approving owner of every target
        (Policy(owners=OWNERS), "params", ["U2"], ("R1", "R2"), 0, ("R2",)),
        (Policy(owners=OWNERS), "params", ["U2", "U7"], ("R1", "R2"), -1, ()),
        (Policy(owners=OWNERS, push_approvals=3), "params", ["U2", "U7"], ("R1", "R2"), 1, ()),
        (Policy(owners=parse_owners("R* U1 U2")), "params", ["U1"], ("R1",), 1, ("R1",)),
    ],
)
def test_when_a_gate_is_settled(
    policy: Policy,
    gate: str,
    approvers: list[str],
    targets: tuple[str, ...],
    people: int,
    devices: tuple[str, ...],
) -> None:
    short = shortfall(
        policy,
        gate=gate,
        approvers=[Person(i) for i in approvers],
        requester_id="U1",
        targets=targets,
    )
    assert (short.people, short.devices) == (people, devices)
    assert short.settled == (people <= 0 and not devices)


def test_requests_refused_where_nobody_could_approve() -> None:
    u1, u2 = Person("U1"), Person("U2", frozenset({"@netops"}))
    assert refuse_request(Policy(), u1, CHANNEL) is None
    assert refuse_request(Policy(requesters=("U1",)), u1, CHANNEL) is None
    assert refuse_request(Policy(requesters=("@netops",)), u2, CHANNEL) is None
    assert "LABBOT_REQUESTERS" in (refuse_request(Policy(requesters=("U1",)), u2, CHANNEL) or "")
    assert "direct messages" in (refuse_request(Policy(), u1, DM) or "")
    assert "no approvers are set for C1" in (
        refuse_request(Policy(approvers_by_channel={"C9": ["U3"]}), u1, CHANNEL) or ""
    )


def test_curation_follows_the_place_rules() -> None:
    assert refuse_curation(Policy(), person=Person("U1"), place=CHANNEL) is None
    assert refuse_curation(Policy(approvers=("U2",)), person=Person("U1"), place=CHANNEL)
    assert refuse_curation(Policy(), person=Person("U1"), place=DM)


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("R1\n", "line 1: 'R1' names no owner"),
        ("# ok\n\nR* U1\nSW1 # no one\n", "line 4"),
        ("R* @bob:hs\nSW* ＠carol:hs\n", "line 2: '＠carol:hs' is no Matrix user id"),
    ],
)
def test_a_malformed_owners_file_names_the_line(text: str, error: str) -> None:
    with pytest.raises(OwnersError, match=error):
        parse_owners(text)


def test_groups_and_power_levels_named_by_rules() -> None:
    policy = Policy(owners=OWNERS, approvers=("@leads",))
    assert policy.groups_named() == {"@netops", "@leads"}
    assert policy.reads_power and not Policy(owners=OWNERS[:2]).reads_power


LOOK_ALIKES = ["@bob:hs", "@bob:HS", "@BOB:hs", "＠bob:hs", "@bob:hs "]


def test_look_alike_approvers_count_as_one_person() -> None:
    short = shortfall(
        Policy(push_approvals=2),
        gate="params",
        approvers=[Person(i) for i in LOOK_ALIKES],
        requester_id="@alice:hs",
        targets=("R1",),
    )
    assert short.people == 1  # one approval of two


def test_a_look_alike_of_the_requester_is_the_requester() -> None:
    for approver in ("@BOB:hs", "@bob:HS"):
        refused = refuse_decision(
            Policy(),
            person=Person(approver),
            places=[CHANNEL],
            requester_id="@bob:hs",
            choice="approve",
            targets=("R1",),
        )
        assert refused == FOUR_EYES
    counted = shortfall(
        Policy(), gate="params", approvers=[Person("@BOB:hs")], requester_id="@bob:hs", targets=()
    )
    assert counted.people == 1
