"""What the audit store returns: small frozen records, easy to print as a table, CSV or JSON."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal, NotRequired, TypedDict

from base.vocabulary import Choice, GateName

__all__ = [
    "AuditEntry",
    "AuditKind",
    "Ballot",
    "BreakKind",
    "CapReached",
    "ChainBreak",
    "ChainReport",
    "ChangeRecord",
    "ChangeSummary",
    "DevicePush",
    "GateSummary",
    "OpenCaps",
    "PushRow",
    "Refusal",
    "Resolution",
    "TemplateRef",
    "Vote",
]

ChangeKind = Literal["change", "rollback"]
# What an audit entry records: a change or rollback asked for, a vote, a gate settled, a
# refusal, a device pushed, how a change ended, the templates it used, a device read.
AuditKind = Literal[
    "change",
    "rollback",
    "decision",
    "resolved",
    "refusal",
    "push",
    "event",
    "template",
    "read",
    "agent",
]


@dataclass(frozen=True)
class ChangeRecord:
    change_id: str
    kind: ChangeKind
    rollback_of: str | None
    thread_key: str
    platform: str
    channel: str
    requester_id: str
    requester_name: str
    text: str
    at: datetime
    lab: str | None  # the lab it was made on; None: recorded before labs were kept


@dataclass(frozen=True)
class OpenCaps:
    """How many changes may be open at once, counted from `since` (older ones have expired):
    per requester, per channel and over all."""

    since: datetime
    per_user: int
    per_channel: int
    overall: int


CapScope = Literal["user", "channel", "overall"]


@dataclass(frozen=True)
class CapReached:
    """No change was opened: `scope` already has `count` open, its cap."""

    scope: CapScope
    count: int


ReadScope = Literal["rate", "budget"]


@dataclass(frozen=True)
class ReadsRefused:
    """No read was recorded, so none may be sent: `scope` is full with `count` ("rate": the
    person's device reads in the minute, "budget": the characters the channel was posted)."""

    scope: ReadScope
    count: int


@dataclass(frozen=True, kw_only=True)
class Ballot:
    """One click to record: at which gate, what was chosen on exactly which content, by whom
    and where. Keyword-only: six of its fields are str, and a swap would enter the audit chain."""

    change_id: str
    gate: GateName
    interrupt_id: str
    choice: Choice
    content_sha256: str
    feedback: str | None
    actor_id: str
    actor_name: str
    platform: str
    channel: str


@dataclass(frozen=True)
class Vote:
    """One person's decision at one gate (approve, modify or cancel)."""

    change_id: str
    gate: GateName
    interrupt_id: str
    choice: Choice
    actor_id: str
    actor_name: str
    platform: str
    channel: str
    content_sha256: str
    feedback: str | None
    at: datetime


@dataclass(frozen=True)
class Resolution:
    """The decision that settled a gate; exactly one per interrupt (first decision wins)."""

    interrupt_id: str
    change_id: str
    gate: GateName
    choice: Choice
    actor_id: str
    actor_name: str
    content_sha256: str
    feedback: str | None
    at: datetime


@dataclass(frozen=True)
class DecideResult:
    """`resolved`: the gate is settled by this decision (resume the graph with `resolution`)."""

    resolved: bool
    resolution: Resolution | None
    approvals: tuple[Vote, ...]


@dataclass(frozen=True)
class Refusal:
    change_id: str | None
    interrupt_id: str | None
    gate: str | None
    actor_id: str
    actor_name: str
    platform: str
    channel: str
    reason: str
    at: datetime


class DevicePush(TypedDict):
    """One device's push as it is recorded (read back as a PushRow): the push's result and
    its post-checks' result apart (left out: none ran), and the backups stored around it (left
    out: none)."""

    device: str
    lines_sha256: str
    status: str
    detail: str
    post_check: NotRequired[str]
    post_check_detail: NotRequired[str]
    before_backup: NotRequired[str]
    after_backup: NotRequired[str]


@dataclass(frozen=True)
class PushRow:
    """One device's push as the audit reads it back (the step's own record, before booking, is
    `workflow.results.push_records.PushRecord`)."""

    change_id: str
    device: str
    lines_sha256: str
    status: str  # the push's own result
    detail: str
    at: datetime
    post_check: str | None = None  # its post-checks' result (None: none ran, or an older row)
    post_check_detail: str | None = None
    before_backup: str | None = None
    after_backup: str | None = None


@dataclass(frozen=True)
class ChangeEvent:
    change_id: str
    status: str  # done, cancelled, failed, expired, blocked, ...
    detail: str
    tokens: str | None  # token usage as canonical JSON
    at: datetime


@dataclass(frozen=True)
class GateSummary:
    gate: str
    interrupt_id: str
    votes: tuple[Vote, ...]
    resolution: Resolution | None


@dataclass(frozen=True)
class ChangeSummary(ChangeRecord):
    """Everything recorded about one change, for "who confirmed which change"."""

    gates: tuple[GateSummary, ...]
    pushes: tuple[PushRow, ...]
    refusals: tuple[Refusal, ...]
    rollbacks: tuple[ChangeRecord, ...]  # later changes that roll this one back
    events: tuple[ChangeEvent, ...]
    rollback_events: tuple[ChangeEvent, ...] = ()  # how those rollbacks ended


@dataclass(frozen=True)
class AuditEntry:
    """One audit row, flattened (kind: change, rollback, decision, resolved, refusal, push,
    event)."""

    seq: int
    at: datetime
    kind: AuditKind
    change_id: str
    actor_id: str
    actor_name: str
    platform: str
    channel: str
    gate: str
    device: str
    sha256: str
    # What the row holds, by kind (the bot words it; empty where the kind has none):
    text: str = ""  # change/rollback: the request; read: the command sent; agent: its arguments
    rollback_of: str = ""  # rollback: the change it undoes
    lab: str = ""  # the lab of the row: a change's own, a push's or read's device's, else its
    # change's ("" before labs were kept)
    choice: str = ""  # decision, resolved: approve / modify / cancel
    status: str = ""  # push: the device's result; event, template: how the change ended;
    # agent: answered, or why the call was refused (`gate` holds the tool called)
    detail: str = ""  # decision: feedback; refusal: the reason; push, event: what happened
    post_check: str = ""  # push: its post-checks' result ("" when none ran)
    post_check_detail: str = ""  # push: what they found
    tokens: str = ""  # event: LLM tokens spent (canonical JSON), "" when none
    templates: tuple[TemplateRef, ...] = ()  # template: the parts the change used, in order


@dataclass(frozen=True)
class TemplateRef:
    """One template a change used, as its audit row keeps it."""

    name: str
    version: int | None
    source: str
    sha256: str


# How the audit chain breaks: a row's seq skips (rows before it deleted), its prev_hash is not
# the row before it, it is keyed and no key is set, it is unkeyed after keyed rows, its content
# does not match its hash, its sealed text cannot be opened with the storage keys; or, against
# the anchored head, rows are missing or were rewritten.
BreakKind = Literal[
    "seq_gap",
    "prev_hash",
    "no_key",
    "unkeyed_after_keyed",
    "content",
    "sealed",
    "truncated",
    "rewritten",
]


@dataclass(frozen=True)
class ChainBreak:
    """Where and how the chain first breaks (the bot words it)."""

    kind: BreakKind
    table: str = ""  # the row's table ("" when found against the anchored head)
    row_id: int = 0
    seq: int = 0  # seq_gap: the row's seq; truncated: the rows in the database
    expected: int = 0  # seq_gap: the seq expected; truncated, rewritten: the anchored rows
    anchored_hash: str = ""  # rewritten: the hash the anchor holds for that row


@dataclass(frozen=True)
class ChainReport:
    ok: bool
    rows: int
    first_broken: ChainBreak | None
    head: str = ""  # the last row's hash (what an anchor or a report quotes)
