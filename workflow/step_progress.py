"""A step's progress, handed by whoever runs the graph straight to the nodes that make it.

`ChangeWorkflow` runs each step with a `StepContext` (LangGraph's run context, never
checkpointed); a node hands its sink to the device gateway (push and post-check progress, from
the device threads through `LoopBridge`) or to the model's output (its writing). So an event
goes device thread → loop → the bot's sink, with no relay through the graph's stream.
"""

from __future__ import annotations

from dataclasses import dataclass

from langgraph.runtime import get_runtime

from workflow.model import StepProgress

__all__ = ["step_progress"]


@dataclass(frozen=True)
class StepContext:
    """What one run of the graph is given besides its state."""

    on_progress: StepProgress | None = None  # None: nobody waits for progress


def step_progress() -> StepProgress | None:
    """The running step's progress sink; None when nobody waits for it or outside a graph run
    (`labbot llm check`, benchmarks)."""
    try:
        context = get_runtime(StepContext).context
    except RuntimeError:  # "Called get_config outside of a runnable context"
        return None
    return context.on_progress if context is not None else None
