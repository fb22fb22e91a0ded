"""The model's writing progress, streamed to whoever runs the graph (LangGraph `custom` mode)."""

from __future__ import annotations

from dataclasses import asdict

from langgraph.config import get_stream_writer

from workflow.llm.output import ProgressSink
from workflow.model import LLMProgress


def graph_progress() -> ProgressSink | None:
    """A sink writing `{"llm": …}` events into the running graph's stream; None outside a graph
    (`labbot llm check`, benchmarks), where nobody is waiting for them."""
    try:
        writer = get_stream_writer()
    except RuntimeError:  # "Called get_config outside of a runnable context"
        return None

    def progress(event: LLMProgress) -> None:
        writer({"llm": asdict(event)})

    return progress
