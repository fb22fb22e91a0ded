"""Who may start a change and who may decide a gate. Pure functions over settings."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from adapters.chat import Choice


@dataclass(frozen=True)
class Policy:
    approvers: tuple[str, ...] = ()  # everywhere; empty = anyone in the channel
    approvers_by_channel: Mapping[str, Sequence[str]] = field(default_factory=dict)
    requesters: tuple[str, ...] = ()  # empty = anyone may start changes
    no_self_approval: bool = False
    push_approvals: int = 1  # N of the N-of-M rule for the params (push) gate

    def approvers_for(self, channel: str) -> tuple[str, ...]:
        """A channel's own list replaces the global one."""
        if channel in self.approvers_by_channel:
            return tuple(self.approvers_by_channel[channel])
        return self.approvers

    def required_approvals(self, gate: str) -> int:
        return self.push_approvals if gate == "params" else 1


def refuse_request(policy: Policy, actor_id: str) -> str | None:
    """The reason `actor_id` may not start a change, or None."""
    if policy.requesters and actor_id not in policy.requesters:
        return "you are not on the list of people who may request changes (LABBOT_REQUESTERS)"
    return None


def refuse_curation(policy: Policy, *, actor_id: str, channel: str) -> str | None:
    """The reason `actor_id` may not save or pin templates here (approvers only), or None."""
    allowed = policy.approvers_for(channel)
    if allowed and actor_id not in allowed:
        return "only approvers may save or pin templates here (LABBOT_APPROVERS)"
    return None


def refuse_decision(
    policy: Policy, *, actor_id: str, channel: str, requester_id: str, choice: Choice
) -> str | None:
    """The reason `actor_id` may not make this decision, or None.

    The requester may always cancel their own change; approving it needs someone else when
    no-self-approval is on.
    """
    if choice == "cancel" and actor_id == requester_id:
        return None
    allowed = policy.approvers_for(channel)
    if allowed and actor_id not in allowed:
        return "you are not an approver here (LABBOT_APPROVERS)"
    if choice == "approve" and policy.no_self_approval and actor_id == requester_id:
        return "you requested this change; someone else must approve it (no self-approval)"
    return None
