"""Every text labbot says to people, in one place."""

from __future__ import annotations

HELP = """\
I change your lab safely: I propose a template, you approve it, I propose per-device
parameters, you approve the rendered preview, then I push and report each device here.

Ask for a change in plain words, for example:
  configure OSPF area 0 on all routers
  apply ntp to R1,R2 servers=10.0.0.1
Commands:
  help                      this text
  templates [NAME]          the template library, or one template
  audit [change=ID] [user=U] [device=R1] [since=DATE] [until=DATE]
                            who confirmed which change
  status                    the pending step of this thread
  cancel                    cancel the pending change of this thread
  rollback CHANGE_ID        propose undoing a pushed change (needs approval too)"""

ALREADY_DECIDED = "This step was already {choice} by {actor} at {at}."
ALREADY_VOTED = "You already approved this step; waiting for {missing} more approval(s)."
STALE_GATE = "This button is stale: that step is no longer pending (see the latest message)."
CHANGED_GATE = (
    "Refused: what this button approves differs from what is pending now. "
    "Review the latest message and decide there."
)
EXPIRED_GATE = "This step expired at {at}; nothing was pushed. Ask again to start over."
PENDING_ELSEWHERE = (
    "A change is already waiting for a decision in this thread ({change_id}). "
    "Decide it or type `cancel` first."
)
NOTHING_PENDING = "Nothing is waiting for a decision in this thread."
VOTE_RECORDED = "Approval by {actor} recorded ({count} of {required}); waiting for {missing} more."
REFUSED = "Refused: {reason}."
PLANNING = "Working on it: reading the lab and preparing a template for “{text}”…"
ROLLBACK_PLANNING = "Preparing a rollback of {change_id}…"
DECIDED_FOOTER = {
    "approve": "✅ Approved by {actor} at {at}",
    "modify": "✏️ Modification requested by {actor} at {at}: {feedback}",
    "cancel": "❌ Cancelled by {actor} at {at}",
}
CHOICE_PAST = {"approve": "approved", "modify": "sent back for changes", "cancel": "cancelled"}
FINISHED_TITLE = {
    "done": "Change {change_id} pushed",
    "cancelled": "Change {change_id} cancelled",
    "expired": "Change {change_id} expired",
    "failed": "Change {change_id} failed",
    "blocked": "Change {change_id} blocked",
}
UNKNOWN_CHANGE = "No change {change_id} is on record."
ROLLBACK_USAGE = "Usage: rollback CHANGE_ID (see `audit` for change ids)."
