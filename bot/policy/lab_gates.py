"""What waits for a person in each lab of the labs file (LABBOT_LABS): each lab's open gates
judged by that lab's own rules (a student of pod-2 may decide nothing in pod-1, an instructor in
both), for `labbot pending` and the App Home. Nothing crosses labs: a change is listed only
under the lab it was made on."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

from adapters.chat import Actor
from bot.policy.authorize import Authorizer
from bot.policy.open_gates import Pending, open_gates, pending_among
from bot.policy.rules import Policy, same_person
from bot.ports import GateReader
from storage.ports import DecisionRecords

__all__ = ["LabPending", "pending_by_lab"]


@dataclass(frozen=True)
class LabPending:
    lab: str
    pending: Pending


async def pending_by_lab(
    actor: Actor,
    authorizers: Mapping[str, Authorizer],
    *,
    workflow: GateReader,
    audit: DecisionRecords,
    platform: str | None = None,
    always: Collection[str] = (),
) -> tuple[LabPending, ...]:
    """Per lab (`authorizers`: each lab's, by name, in the labs file's order), what `actor` may
    decide there and their own open changes there; a lab is listed when they are among its
    people, something of theirs waits in it, or it is in `always`."""
    gates = await open_gates(workflow, audit, platform)
    found = []
    for lab, authorizer in authorizers.items():
        here = [item for item in gates if authorizer.sees(item[2])]  # made on this lab
        pending = await pending_among(actor, here, authorizer=authorizer, audit=audit)
        mine = pending.to_decide or pending.requested
        if mine or lab in always or among_people(authorizer.policy, actor.id):
            found.append(LabPending(lab, pending))
    return tuple(found)


def among_people(policy: Policy, user_id: str) -> bool:
    """Whether a rule of `policy` names `user_id` itself (an approver, owner, requester)."""
    return any(same_person(token, user_id) for token in policy.who_tokens())
