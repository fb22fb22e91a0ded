"""`labbot llm check`: one tiny structured question to the endpoint, timed and accounted."""

from __future__ import annotations

import time
from dataclasses import dataclass

from pydantic import BaseModel

from workflow.llm.output import Asked, StructuredOutput

__all__ = ["CheckResult", "check_endpoint"]

CHECK_SYSTEM = "You answer network lab questions with the requested structure."
CHECK_HUMAN = "Which read-only command shows the software version of device R1?"


class CheckAnswer(BaseModel):
    """A device and one read-only command for it."""

    device: str
    command: str


@dataclass(frozen=True)
class CheckResult:
    asked: Asked[CheckAnswer]
    seconds: float


async def check_endpoint(asker: StructuredOutput) -> CheckResult:
    """Ask the tiny question the way the planner asks its own; PlanningError names a failure."""
    started = time.perf_counter()
    asked = await asker.ask(CheckAnswer, CHECK_SYSTEM, CHECK_HUMAN)
    return CheckResult(asked, time.perf_counter() - started)
