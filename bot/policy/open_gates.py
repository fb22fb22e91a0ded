"""What waits for whom: the open gates a person may decide, and the changes they requested.

The approval policy answers "may this person decide it" (bot.policy.authorize, asked with an approve
decision on the gate, where the gate is); this module only gathers the open gates from storage
(the audit's open changes, the checkpointer's pending gates), so it is right after a restart.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from adapters.chat import Actor, Decision, ThreadRef
from adapters.links import thread_link, thread_of
from base.vocabulary import GateName, stamp
from bot import messages
from bot.policy.authorize import Authorizer
from bot.policy.facts import gate_targets
from bot.ports import GateReader
from storage.audit_records import ChangeRecord
from storage.ports import DecisionRecords
from workflow.api import PendingGate

__all__ = [
    "OpenGate",
    "Pending",
    "describe",
    "open_gates",
    "pending_among",
    "pending_for",
    "pending_text",
]

MAX_LISTED = 50  # open gates shown per list; the count says how many more there are


@dataclass(frozen=True)
class OpenGate:
    change_id: str
    requester: str  # display name
    requester_id: str
    gate: GateName
    devices: tuple[str, ...]
    requested_at: datetime
    expires_at: datetime
    thread: ThreadRef
    text: str  # what was asked (hostile text: escape where it is rendered as markup)

    @property
    def link(self) -> str:
        return thread_link(self.thread)


@dataclass(frozen=True)
class Pending:
    """What `actor` may decide now, and their own changes still open."""

    to_decide: tuple[OpenGate, ...]
    requested: tuple[OpenGate, ...]


async def open_gates(
    workflow: GateReader, audit: DecisionRecords, platform: str | None = None
) -> list[tuple[OpenGate, PendingGate, ChangeRecord]]:
    """Every gate waiting for a decision (expired ones included), oldest change first."""
    found = []
    for change in await audit.open_change_records(platform):
        gate = await workflow.pending_gate(change.thread_key)
        if gate is None or gate.change_id != change.change_id:
            continue
        thread = thread_of(change.platform, change.channel, change.thread_key)
        shown = OpenGate(
            change_id=change.change_id,
            requester=change.requester_name,
            requester_id=change.requester_id,
            gate=gate.gate,
            devices=gate_targets(gate),
            requested_at=change.at,
            expires_at=datetime.fromisoformat(gate.expires_at),
            thread=thread,
            text=change.text,
        )
        found.append((shown, gate, change))
    return found


async def pending_for(
    actor: Actor,
    *,
    workflow: GateReader,
    audit: DecisionRecords,
    authorizer: Authorizer,
    platform: str | None = None,
    seen: Callable[[ChangeRecord], bool] = lambda _: True,
) -> Pending:
    """The gates `actor` may approve (not yet voted on by them) and the ones they requested;
    `seen`: which changes count here (a lab's own, Authorizer.sees)."""
    gates = [item for item in await open_gates(workflow, audit, platform) if seen(item[2])]
    return await pending_among(actor, gates, authorizer=authorizer, audit=audit)


async def pending_among(
    actor: Actor,
    gates: list[tuple[OpenGate, PendingGate, ChangeRecord]],
    *,
    authorizer: Authorizer,
    audit: DecisionRecords,
) -> Pending:
    """Of `gates` (`open_gates`'), those `actor` may approve and those they requested."""
    to_decide, requested = [], []
    for shown, gate, change in gates:
        if change.requester_id == actor.id:
            requested.append(shown)
        if await _may_approve(actor, shown, gate, authorizer, audit):
            to_decide.append(shown)
    return Pending(tuple(to_decide), tuple(requested))


async def _may_approve(
    actor: Actor, shown: OpenGate, gate: PendingGate, authorizer: Authorizer, audit: DecisionRecords
) -> bool:
    if any(vote.actor_id == actor.id for vote in await audit.votes(gate.interrupt_id)):
        return False
    decision = Decision(shown.thread, actor, gate.interrupt_id, "approve", gate.sha256)
    summary = await audit.change_summary(shown.change_id)
    return await authorizer.refuse_decision(decision, gate, summary) is None


def describe(item: OpenGate, now: datetime) -> str:
    """One line per open gate: change, requester, step, devices, age, expiry, link."""
    expiry = messages.PENDING_EXPIRED if item.expires_at <= now else stamp(item.expires_at)
    return messages.PENDING_LINE.format(
        change_id=item.change_id,
        requester=item.requester,
        gate=item.gate,
        devices=", ".join(item.devices) or "—",
        age=age_words(now - item.requested_at),
        expires=expiry,
        link=item.link,
    )


def age_words(age: timedelta) -> str:
    """`3 min`, `2 h 5 min`, `1 d 4 h`: how long a gate has been waiting."""
    seconds = max(int(age.total_seconds()), 0)
    minutes, hours, days = seconds // 60 % 60, seconds // 3600 % 24, seconds // 86400
    if days:
        return f"{days} d {hours} h"
    if hours:
        return f"{hours} h {minutes} min"
    return f"{minutes} min"


def pending_text(pending: Pending, now: datetime) -> str:
    """The whole answer to `pending`, as lines of text (chat and CLI alike)."""
    parts = [messages.PENDING_TO_DECIDE.format(count=len(pending.to_decide))]
    parts += [describe(item, now) for item in pending.to_decide[:MAX_LISTED]]
    parts += _more(len(pending.to_decide))
    parts.append(messages.PENDING_REQUESTED.format(count=len(pending.requested)))
    parts += [describe(item, now) for item in pending.requested[:MAX_LISTED]]
    parts += _more(len(pending.requested))
    return "\n".join(parts)


def _more(count: int) -> list[str]:
    return [messages.PENDING_MORE.format(count=count - MAX_LISTED)] if count > MAX_LISTED else []
