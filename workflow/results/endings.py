"""Why a change ended, as typed values the bot words (bot/views/ending.py, bot/messages/).

Each way of ending is a small TypedDict told apart by its `kind` (JSON-shaped, so the
checkpointer stores it as it is); `Ending` is their union and `END_KINDS` every kind. The
workflow says what happened with these fields; it never builds the sentence a person reads.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal, NotRequired, TypedDict, get_args

from base.errors import LabbotError, PlanningError, TargetError
from base.vocabulary import GateName, TargetProblem
from workflow.model import DeviceFacts, ResponseItem
from workflow.safety.deny import DenyList
from workflow.safety.masked_lines import mask_in

__all__ = [
    "DevicesHeld",
    "EndKind",
    "Ending",
    "GateEnding",
    "HashMismatch",
    "HeldDevice",
    "NothingToRollBack",
    "PostChecksNotRun",
    "PushNotStarted",
    "PushRefused",
    "Pushed",
    "Refusal",
    "RollbackEnding",
    "RollbackNotStarted",
    "Stage",
    "StillInvalid",
    "TargetsEnding",
    "UnusableDevice",
    "error_ending",
    "no_usable_device",
    "push_refusals",
    "targets_ending",
]

# Which proposal a planner failure or a round of invalid proposals was about.
Stage = Literal["template", "parameters"]


class GateEnding(TypedDict):
    """Nobody decided before `at` (the gate's expiry), or `actor` cancelled there at `at` (ISO
    times); `pushed`: an earlier step of the change had pushed (a drifted device's review)."""

    kind: Literal["expired", "cancelled"]
    gate: GateName
    at: str
    actor: str  # "" when expired: nobody's choice
    pushed: bool


class RollbackEnding(TypedDict):
    """How the offer to roll back failed post-checks ended: it `expired` at `at`, `actor` kept
    the change, or the change was `rolled_back` as `actor` approved."""

    kind: Literal["expired", "kept", "rolled_back"]
    failures: list[ResponseItem] | str  # the failed post-checks' devices (text: before typed)
    at: str  # ISO time
    actor: str  # "" when expired
    # per device, the lines its push left outside the template's sections (the offer's reason)
    outside: NotRequired[dict[str, list[str]]]
    # the devices the push did not change as approved (changed since the preview, or their
    # push failed; workflow.phases.postcheck_report.not_pushed): no fresh preview follows this
    # ending
    not_pushed: NotRequired[list[ResponseItem]]
    # `rolled_back` when the rollback's push failed on some devices: those, each with why (the
    # change stays on them), and the devices it did roll back
    not_rolled_back: NotRequired[list[ResponseItem]]
    rolled_back_on: NotRequired[list[str]]


class TargetsEnding(TypedDict):
    """The request's devices could not be told exactly (a TargetError's fields)."""

    kind: Literal["targets"]
    problem: TargetProblem
    word: str  # the word that is not a device, glob or kind ("" when none)
    known: list[str]  # the lab's devices
    count: int  # devices selected ("too_many")
    limit: int  # LABBOT_MAX_TARGETS_CONFIRMED ("too_many")


class LabUnreadable(TypedDict):
    """The inventory or a device's facts could not be read (`again`: before a fresh preview)."""

    kind: Literal["lab_unreadable"]
    error: str
    again: bool


class UnusableDevice(TypedDict):
    name: str
    reason: str


class NoUsableDevice(TypedDict):
    kind: Literal["no_usable_device"]
    devices: list[UnusableDevice]  # every device listed, with why it cannot be used


class NothingToRollBack(TypedDict):
    kind: Literal["nothing_to_roll_back"]
    change_id: str  # the change asked to be rolled back


class PlannerFailed(TypedDict):
    kind: Literal["planner_failed"]
    stage: Stage
    error: str


class StillInvalid(TypedDict):
    """The planner's proposals were still invalid after `attempts` tries."""

    kind: Literal["still_invalid"]
    stage: Stage
    attempts: int
    errors: list[str]  # the last proposal's validation errors


class HeldDevice(TypedDict):
    device: str
    change_id: str  # the change holding it from its preview until its push


class DevicesHeld(TypedDict):
    kind: Literal["devices_held"]
    held: list[HeldDevice]


class HashMismatch(TypedDict):
    """What was about to be pushed is not what was approved (sha256 of each)."""

    kind: Literal["hash_mismatch"]
    planned: str
    approved: str  # "" when nothing was approved


class Refusal(TypedDict):
    """A line refused just before a push: by the deny-list (`detail`: its reason), outside the
    template's sections (`detail`: the sections) or carrying a masked secret (`detail`: the
    mask)."""

    device: str
    line: str
    rule: Literal["deny_list", "sections", "masked"]
    detail: str


class PushRefused(TypedDict):
    kind: Literal["push_refused"]
    rollback: bool  # the rollback push (after failed post-checks) was refused
    refusals: list[Refusal]


class PushNotStarted(TypedDict):
    kind: Literal["push_not_started"]
    error: str


class RollbackNotStarted(TypedDict):
    kind: Literal["rollback_not_started"]
    failures: list[ResponseItem] | str  # the failed post-checks' devices (text: before typed)
    error: str


class PostChecksNotRun(TypedDict):
    kind: Literal["post_checks_not_run"]
    error: str


class Pushed(TypedDict):
    """The push ran: the change's result says per device how (`rollback`: the rollback push)."""

    kind: Literal["pushed"]
    rollback: bool


Ending = (
    GateEnding
    | TargetsEnding
    | LabUnreadable
    | NoUsableDevice
    | NothingToRollBack
    | PlannerFailed
    | StillInvalid
    | DevicesHeld
    | HashMismatch
    | PushRefused
    | PushNotStarted
    | RollbackNotStarted
    | PostChecksNotRun
    | Pushed
)
EndKind = Literal[
    "expired",
    "cancelled",
    "targets",
    "lab_unreadable",
    "no_usable_device",
    "nothing_to_roll_back",
    "planner_failed",
    "still_invalid",
    "devices_held",
    "hash_mismatch",
    "push_refused",
    "push_not_started",
    "rollback_not_started",
    "post_checks_not_run",
    "pushed",
]
END_KINDS: tuple[EndKind, ...] = get_args(EndKind)


def error_ending(err: LabbotError, stage: Stage | None = None, *, again: bool = False) -> Ending:
    """A fault that ends the change: the request's devices (TargetError), the planner at
    `stage` (PlanningError), else the lab could not be read (`again`: before a fresh preview)."""
    if isinstance(err, TargetError):
        return targets_ending(err)
    if isinstance(err, PlanningError) and stage is not None:
        return PlannerFailed(kind="planner_failed", stage=stage, error=str(err))
    return LabUnreadable(kind="lab_unreadable", error=str(err), again=again)


def no_usable_device(
    unusable: Sequence[Mapping[str, str]], facts: Mapping[str, DeviceFacts]
) -> NoUsableDevice:
    """Every device listed but unusable, then every selected one whose facts could not be read."""
    listed = [UnusableDevice(name=u["name"], reason=u["reason"]) for u in unusable]
    unread = [UnusableDevice(name=n, reason=f["error"]) for n, f in facts.items() if "error" in f]
    return NoUsableDevice(kind="no_usable_device", devices=listed + unread)


def targets_ending(err: TargetError) -> TargetsEnding:
    return TargetsEnding(
        kind="targets",
        problem=err.problem,
        word=err.word,
        known=list(err.known),
        count=err.count,
        limit=err.limit,
    )


def deny_refusals(
    deny_list: DenyList,
    device: str,
    lines: Sequence[str],
    family: str,
    allow: Sequence[str] = (),
    management: str | None = None,
) -> list[Refusal]:
    """The device's lines the deny-list refuses (unless `allow`ed), each with its reason;
    `management`: the interface labbot reaches the device through, when known."""
    return [
        Refusal(device=device, line=hit.line, rule="deny_list", detail=hit.explained)
        for hit in deny_list.check(lines, family, allow, management)
    ]


def push_refusals(
    deny_list: DenyList,
    device: str,
    lines: Sequence[str],
    family: str,
    allow: Sequence[str] = (),
    management: str | None = None,
) -> list[Refusal]:
    """Why the device's lines may not be pushed: deny-list hits (unless `allow`ed), and lines
    carrying a mask where a secret value should be."""
    masked = [
        Refusal(device=device, line=line, rule="masked", detail=mark)
        for line in lines
        if (mark := mask_in(line)) is not None
    ]
    return deny_refusals(deny_list, device, lines, family, allow, management) + masked
