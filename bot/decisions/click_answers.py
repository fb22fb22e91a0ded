"""What a click on a gate comes to, as one value: the decision service decides it, the reporter
shows it (`ChangeReporter.answer_click`), one call per click.

Each answer names the click's outcome (counted in the metrics). Only a `Resume` goes on: the
service answers the gate in the workflow with its decision and hands the step it reached to the
reporter.
"""

from __future__ import annotations

from dataclasses import dataclass

from base.vocabulary import Choice, Outcome
from workflow.api import GateDecision, PendingGate, Step
from workflow.results.feedback import FeedbackProblem


@dataclass(frozen=True)
class Refused:
    """The click is refused: `text` told only to the clicker, and recorded. `gate`: the pending
    gate it was refused at; else `gate_name`, the gate the click was for ("" when unknown), with
    the change and interrupt it names."""

    text: str
    outcome: Outcome
    gate: PendingGate | None = None
    gate_name: str = ""
    change_id: str = ""
    interrupt_id: str = ""


@dataclass(frozen=True)
class ModifyNotUnderstood:
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
    """`gate` is settled by `decision`, the one the workflow is answered with. `late_notice`:
    the click came after the gate was settled by a process that stopped before resuming it;
    the sentence the clicker is told (the settled decision is the one resumed)."""

    gate: PendingGate
    decision: GateDecision
    late_notice: str = ""

    @property
    def choice(self) -> Choice:
        return self.decision["choice"]

    @property
    def outcome(self) -> Outcome:
        return "already_decided" if self.late_notice else "resolved"


ClickAnswer = Refused | ModifyNotUnderstood | Voted | Expired | Resume
