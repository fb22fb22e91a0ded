"""labbot's shared words: gate names, reviewers' choices, change statuses, click outcomes, stamps.

Each set is declared once, as a `Literal` type and the tuple of its values, so mypy checks the
spelling wherever a word is used and metrics or validation can iterate over the values.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Literal, get_args

__all__ = [
    "CHOICES",
    "OUTCOMES",
    "REPLY_WORDS",
    "Choice",
    "GateName",
    "GateProblem",
    "Outcome",
    "ReadProblem",
    "Status",
    "TargetProblem",
    "as_utc",
    "stamp",
    "table_stamp",
    "utc_now",
]

# The approval gates of a change, in order: the devices (only when a request selects more than
# LABBOT_MAX_TARGETS), the template, the parameters (the push), and the rollback offered when
# post-checks fail after the push.
GateName = Literal["targets", "template", "params", "rollback"]

# A reviewer's choice at a gate.
Choice = Literal["approve", "modify", "cancel"]
CHOICES: tuple[Choice, ...] = get_args(Choice)

# Words a person may type (or a reaction means) for a choice; "execute" is the push gate's approve.
REPLY_WORDS: dict[str, Choice] = {
    "approve": "approve",
    "execute": "approve",
    "confirm": "approve",  # the targets gate's approve
    "modify": "modify",
    "cancel": "cancel",
}

# Why a decision does not fit the pending gate: that gate was decided or replaced ("stale"), or
# what the button approves is not what the gate shows now ("changed").
GateProblem = Literal["stale", "changed"]

# Why a request's devices cannot be told: it names none, a glob matches none, a word is no
# device, the lab has no device of a kind, or it selects more than LABBOT_MAX_TARGETS_CONFIRMED
# (more than LABBOT_MAX_TARGETS is no problem: those devices are confirmed at the targets gate).
TargetProblem = Literal["none_named", "no_match", "unknown", "no_kind", "too_many"]

# Why a read is refused before any device is asked (base.errors.ReadRefused's fields name the
# words at fault): the platform has no allow-list, no command or nothing to show, a character a
# read may not hold, the platform's ping/traceroute cannot be bounded (or are not offered), the
# verb is not a read, a pipe without an allowed filter or its pattern, a probe's option without
# its value, not allowed or out of bounds, or without an address; no devices named, no command
# for a question on a platform, more devices than a read may ask.
ReadProblem = Literal[
    "platform",
    "no_command",
    "needs_object",
    "unsafe",
    "probe_unbounded_tool",
    "probe_not_offered",
    "not_a_read",
    "prints_secrets",
    "no_filter",
    "not_a_filter",
    "needs_pattern",
    "needs_value",
    "bad_option",
    "out_of_bounds",
    "needs_address",
    "no_devices",
    "no_question_command",
    "too_many",
]
READ_PROBLEMS: tuple[ReadProblem, ...] = get_args(ReadProblem)

# How a change ended.
Status = Literal["done", "cancelled", "expired", "failed", "blocked"]

# What became of a click: it resolved the gate, was one vote of several, or was refused because
# the gate was already decided, the policy forbids it, it is stale, its content changed, or the
# gate expired (which ends the change: nobody's choice is applied).
Outcome = Literal["resolved", "vote", "already_decided", "refused", "stale", "changed", "expired"]
OUTCOMES: tuple[Outcome, ...] = get_args(Outcome)


def utc_now() -> datetime:
    return datetime.now(UTC)


def as_utc(at: datetime) -> datetime:
    """`at` as an aware UTC time: SQLite hands back naive datetimes (labbot stores UTC),
    PostgreSQL aware ones."""
    return at.replace(tzinfo=UTC) if at.tzinfo is None else at.astimezone(UTC)


def table_stamp(at: datetime) -> str:
    """A moment in a narrow table column whose header says UTC: `11-30 07:15:03`."""
    return as_utc(at).strftime("%m-%d %H:%M:%S")


def stamp(at: datetime, *, seconds: bool = True) -> str:
    """A moment as people read it in chat and tables: `2026-11-30 07:15:03 UTC` (or, without
    seconds, `2026-11-30 07:15 UTC`)."""
    return as_utc(at).strftime("%Y-%m-%d %H:%M:%S UTC" if seconds else "%Y-%m-%d %H:%M UTC")
