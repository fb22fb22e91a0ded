"""What the decision service is given (its ports): the workflow it drives and reads, and the
per-thread lock. `workflow.api.ChangeWorkflow` and `storage.locks.thread_lock` are the real ones;
the service's unit tests give fakes that mypy checks against these."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol

from workflow.api import GateDecision, PendingGate, Step
from workflow.model import StepProgress
from workflow.results.feedback import FeedbackProblem
from workflow.state import Requester

__all__ = ["ChangeRunner", "GateReader", "ThreadLock"]

# The lock of one thread (by its key), held around each start and each record-and-resume.
ThreadLock = Callable[[str], AbstractAsyncContextManager[Any]]


class GateReader(Protocol):
    async def pending_gate(self, thread_id: str) -> PendingGate | None: ...


class ChangeRunner(GateReader, Protocol):
    """Start a change, resume or expire its pending gate (the one read and checked under the
    thread's lock), by its interrupt id."""

    async def start(
        self,
        thread_id: str,
        *,
        change_id: str,
        text: str,
        requester: Requester,
        rollback_of: str | None = None,
        on_progress: StepProgress | None = None,
        scope: str = "",
    ) -> Step: ...

    async def resume(
        self,
        thread_id: str,
        gate: PendingGate,
        decision: GateDecision,
        on_progress: StepProgress | None = None,
    ) -> Step: ...

    async def expire(self, thread_id: str, gate: PendingGate) -> Step: ...

    async def feedback_problem(self, thread_id: str, feedback: str) -> FeedbackProblem | None:
        """Why a Modify with `feedback` cannot be acted on at the pending gate, or None."""
        ...
