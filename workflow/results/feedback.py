"""Whether a Modify's words can be read without an LLM, asked before the gate is left.

The library planner reads only what it can parse: at the template gate another template
(`apply bgp`) or other devices (`on R1,R2`); at the params gate `key=value` and "<word> <value>"
phrases of the template's own parameters, valid for every device. Anything else keeps the gate
open with a `FeedbackProblem` naming the gate's parameters and an example, never ending the
change (a Modify that reached the planner unread would end it, or change nothing silently).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from base.vocabulary import GateName
from workflow.model import PlanRequest, TemplateProposal
from workflow.results.endings import TargetsEnding

__all__ = ["FeedbackProblem", "FeedbackReader"]


@dataclass(frozen=True)
class FeedbackProblem:
    """Why a Modify's text cannot be used at `gate`: `reasons` ([] when nothing in it could be
    read), and how to say it: the template's `params` and an `example` of them."""

    gate: GateName
    template: str
    params: tuple[str, ...]
    example: str  # key=value ... with the template's example values
    reasons: tuple[str, ...] = ()
    params_later: bool = False  # parameters given at the template gate: set at the next gate
    targets: TargetsEnding | None = None  # the devices it names cannot be told


@runtime_checkable
class FeedbackReader(Protocol):
    """A planner that can tell, before a gate is left, that it cannot read a Modify."""

    async def feedback_problem(
        self, request: PlanRequest, template: TemplateProposal, gate: GateName
    ) -> FeedbackProblem | None:
        """None when `request.feedback` can be acted on at `gate`; else what is wrong."""
        ...
