"""What a click on a gate comes to, as one value: the decision service decides it, the reporter
shows it (`ChangeReporter.answer`), one call per click.

Each answer names the click's outcome (counted in the metrics). Only a `Resume` runs anything:
the gate answered in the workflow, its step shown when it ends.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from base.vocabulary import Choice, Outcome
from workflow.api import PendingGate, Step
from workflow.model import StepProgress
from workflow.results.feedback import FeedbackProblem


@dataclass(frozen=True)
class Refused:
    """The click is refused: `text` told only to the clicker, and recorded. `gate`: the pending
    gate it was refused at; else `about` (the gate the click was for, "" when unknown), with the
    change and interrupt it names."""

    text: str
    outcome: Outcome
    gate: PendingGate | None = None
    about: str = ""
    change_id: str = ""
    interrupt_id: str = ""


@dataclass(frozen=True)
class Unread:
    """A Modify the planner cannot act on (no LLM): how to say it; the gate stays open."""

    change_id: str
    feedback: str
    problem: FeedbackProblem
    outcome: Outcome = "refused"


@dataclass(frozen=True)
class Voted:
    """An approval counted that does not settle `gate` yet: `count` of `required`, what is
    still `missing` in words."""

    count: int
    required: int
    missing: str
    outcome: Outcome = "vote"


@dataclass(frozen=True)
class Expired:
    """The click found `gate` past its expiry; `step` is the change ended as expired (in
    nobody's name)."""

    gate: PendingGate
    step: Step
    outcome: Outcome = "expired"


@dataclass(frozen=True)
class Resume:
    """`gate` is settled with `choice`: `run` answers it in the workflow (progress to the sink
    it is given) and returns the step the change ran to. `late`: the click came after the gate
    was settled by a process that stopped before resuming it; what the clicker is told (the
    settled decision is the one resumed)."""

    gate: PendingGate
    choice: Choice
    run: Callable[[StepProgress], Awaitable[Step]]
    late: str = ""

    @property
    def outcome(self) -> Outcome:
        return "already_decided" if self.late else "resolved"


ClickAnswer = Refused | Unread | Voted | Expired | Resume
