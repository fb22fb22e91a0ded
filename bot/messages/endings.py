"""How a change ends: why (the workflow's typed endings), its result and push progress, and
a push cut short by a stop."""

from __future__ import annotations

from base.vocabulary import Status, TargetProblem
from workflow.results.endings import EndKind, Stage

# Why a change ended (workflow/results/endings.py, worded by bot/views/ending.py), after its title
# ("Change … failed: "); each ending's fields fill the blanks of its kind.
ENDED: dict[EndKind, str] = {
    "expired": "the {gate} review expired at {at}; {pushed}. Ask again to start a new change.",
    "cancelled": "{actor} cancelled the change at the {gate} review; {pushed}.",
    "targets": "which devices? {targets}; nothing was read or pushed",
    "lab_unreadable": "could not read the lab: {error}",
    "no_usable_device": "no usable device in the lab ({devices})",
    "nothing_to_roll_back": "change {change_id} left nothing to roll back",
    "planner_failed": "the planner could not propose {stage}: {error}",
    "still_invalid": (
        "the {stage} proposal was still invalid after {attempts} attempt(s); nothing was "
        "pushed:\n{errors}"
    ),
    "devices_held": "{held}",
    "hash_mismatch": (
        "refused to push: the plan's hash {planned} is not the one approved ({approved}); "
        "nothing was pushed"
    ),
    "push_refused": "refused to push, nothing was sent: {refusals}",
    "push_not_started": "the push could not start: {error}",
    "rollback_not_started": (
        "post-checks failed ({failures}); the rollback could not start: {error}"
    ),
    "post_checks_not_run": "the post-checks could not run: {error}",
    "pushed": "pushed to {ok} of {total} devices",
}
LAB_UNREADABLE_AGAIN = "could not read the lab again: {error}"
ROLLBACK_REFUSED = "refused to roll back, nothing was sent: {refusals}"
ROLLBACK_PUSHED = "rollback pushed to {ok} of {total} devices"
PUSH_FAILED_ON = "; failed: {failures}"
DEVICE_FAILED = "{device}: {error}"
NONE_FOUND = "none found"
PROPOSAL_OF: dict[Stage, str] = {"template": "a template", "parameters": "parameters"}
DEVICE_HELD = (
    "{device} is held by change {change_id} from its preview until its push ends; nothing was "
    "pushed — ask again once that change is done"
)
REFUSED_LINE = {
    "deny_list": "{device}: {line!r} is not allowed ({detail})",
    "sections": "{device}: `{line}` is outside the sections the template may touch ({detail})",
    "masked": (
        "{device}: `{line}` carries a masked secret ({detail}) instead of its value; a mask is "
        "never pushed (it would become the device's secret)"
    ),
}
TARGET_PROBLEM: dict[TargetProblem, str] = {
    "none_named": (
        "name the devices: `on R1,R2`, `on R*`, `on all routers` or `on all` (lab devices: {known})"
    ),
    "no_match": "no device matches {word!r} (lab devices: {known})",
    "unknown": "there is no device {word!r} (lab devices: {known})",
    "no_kind": "the lab has no {word} (lab devices: {known})",
    "too_many": (
        "the request selects {count} devices, more than any change may "
        "(LABBOT_MAX_TARGETS_CONFIRMED={limit}); name fewer devices"
    ),
}
NEWER_AT_END = "A newer version exists: {versions}; this change keeps what was approved."
NEWER_VERSION = "{name}@{newest} (this change uses @{used})"
NOTHING_PUSHED = "nothing was pushed"

# How the offer to roll back failed post-checks ended (workflow.results.endings.RollbackEnding).
ROLLBACK_ENDED = {
    "expired": (
        "post-checks failed ({failures}); the rollback review expired at {at}, the change stays "
        "as pushed."
    ),
    "kept": "post-checks failed ({failures}); {actor} kept the change as pushed (no rollback).",
    "rolled_back": "post-checks failed ({failures}); rolled back as approved by {actor}.",
    "rolled_back_partly": "post-checks failed ({failures}); {rollback}",
}
# How the rollback offered after a push that broke off ended (what landed on each device follows,
# NOT_PUSHED_ENDED).
BROKE_OFF_ENDED = {
    "expired": "the push broke off; the rollback review expired at {at}, what landed stays.",
    "kept": "the push broke off; {actor} kept what landed (no rollback).",
    "rolled_back": "the push broke off; what landed was rolled back as approved by {actor}.",
    "rolled_back_partly": "the push broke off; {rollback}",
}
# An approved rollback whose push failed on some devices (after ROLLBACK_ENDED/
# LANDED_OUTSIDE_ENDED's reason): where it took, then where not, why and what to do.
ROLLED_BACK_ON = "rolled back on {devices} as approved by {actor}; "
ROLLBACK_APPROVED = "rollback approved by {actor}; "
# (no `rollback CHANGE` again: it would undo the change a second time where it took)
NOT_ROLLED_BACK = (
    "⚠️ NOT rolled back on {failures}. The change stays on {devices}: read it there "
    "(`show running-config on {devices}`) before it is changed again."
)
NOTHING_MORE_PUSHED = "nothing more was pushed"
FINISHED_TITLE: dict[Status, str] = {
    "done": "Change {change_id} pushed",
    "cancelled": "Change {change_id} cancelled",
    "expired": "Change {change_id} expired",
    "failed": "Change {change_id} failed",
    "blocked": "Change {change_id} blocked",
}

# labbot stopped (SIGTERM) before a push finished: per device, and for the change and thread.
PUSH_CUT_SHORT = {
    "success": "pushed before labbot stopped (not verified after)",
    "failed": "failed before labbot stopped",
    "interrupted": "interrupted: labbot stopped during the push; check the device",
}
INTERRUPTED_DETAIL = "labbot stopped before the push finished"
INTERRUPTED = (
    "⚠️ Change {change_id}: labbot was stopped during the push and could not wait for it. "
    "Interrupted on: {devices} — check those devices (`show running-config`); `audit "
    "change={change_id}` shows each device's state. Their locks are released: to retry, "
    "ask again in a new message (this change's buttons push nothing more)."
)
PUSH_PROGRESS = "Pushing change {change_id}: {done}/{total} device(s) finished"
RESULT_SUMMARY = "{title}: ✓ {ok} ✗ {failed} of {total}"
