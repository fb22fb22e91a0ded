"""Pods: the group's instructors may approve in any of its labs, a pod's students only in their
own (a student of another pod is refused and told where theirs is); four-eyes as ever."""

from __future__ import annotations

from pathlib import Path

from bot import messages
from bot.labs.lab_settings import settings_for
from bot.labs.pods import pod_lab, students_elsewhere
from bot.labs.spec import GNS3Pods, GNS3Source, Lab, PodGroup
from bot.policy.rules import Person, Place, Policy, refuse_decision, refuse_request
from bot.runtime.lab_router import lab_policy
from bot.settings import Settings

GROUP = PodGroup(
    name="ccna",
    source=GNS3Pods("http://gns3", "pod-*"),
    line=1,
    slack=("#pod-*",),
    instructors=("U0TEACH",),
    students=(("pod-1", ("U0ANN", "U0AL")), ("pod-2", ("U0BEN",))),
)


def pods() -> tuple[Lab, ...]:
    return tuple(
        pod_lab(GROUP, name, GNS3Source("http://gns3", name)) for name in ("pod-1", "pod-2")
    )


def policy_of(name: str) -> Policy:
    labs = pods()
    lab = next(lab for lab in labs if lab.name == name)
    own = settings_for(Settings(_env_file=None), lab)  # type: ignore[call-arg]
    return lab_policy(own, lab, labs)


def approve(policy: Policy, who: str, requester: str = "U0ANN") -> str | None:
    return refuse_decision(
        policy,
        person=Person(who),
        places=[Place("C0POD1")],
        requester_id=requester,
        choice="approve",
        targets=("R1",),
    )


def test_a_student_of_another_pod_is_refused_an_instructor_accepted() -> None:
    pod1 = policy_of("pod-1")
    assert approve(pod1, "U0AL") is None  # a student of pod-1, not the requester
    assert approve(pod1, "U0TEACH") is None  # the group's instructor
    refused = approve(pod1, "U0BEN")
    assert refused == (
        "you are a student of pod-2, not of pod-1: only pod-1's students and the group's "
        "instructors decide here"
    )
    assert approve(pod1, "U0STRANGER") == (
        "you are not an approver in C0POD1 (the approvers of lab pod-1 in LABBOT_LABS)"
    )
    assert approve(policy_of("pod-2"), "U0TEACH", requester="U0BEN") is None
    assert "student of pod-1" in (approve(policy_of("pod-2"), "U0ANN", requester="U0BEN") or "")


def test_four_eyes_as_ever() -> None:
    assert approve(policy_of("pod-1"), "U0ANN", requester="U0ANN") == messages.FOUR_EYES
    assert approve(policy_of("pod-1"), "U0TEACH", requester="U0TEACH") == messages.FOUR_EYES


def test_a_student_asks_only_in_their_own_pod() -> None:
    place = Place("C0POD1")
    assert refuse_request(policy_of("pod-1"), Person("U0ANN"), place) is None
    assert refuse_request(policy_of("pod-1"), Person("U0TEACH"), place) is None
    assert "student of pod-2" in (refuse_request(policy_of("pod-1"), Person("U0BEN"), place) or "")


def test_a_lab_of_its_own_has_no_students_elsewhere(tmp_path: Path) -> None:
    lab = Lab("staging", GNS3Source("http://gns3", "staging"), 1, approvers=("U1",))
    assert students_elsewhere(lab, (lab, *pods())) == {}
