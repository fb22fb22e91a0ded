"""What the push node and the post-check nodes share: device progress streamed to the caller."""

from __future__ import annotations

import contextvars
from dataclasses import asdict

from langgraph.config import get_stream_writer

from workflow.model import ProgressCallback, PushProgress


def progress_writer() -> ProgressCallback:
    """A progress callback streaming the node's device events to the caller (`custom` mode).

    The gateway may call back from a context of its own (loop.call_soon_threadsafe from its
    worker threads); LangGraph's writer reads the node's config from a context var.
    """
    writer = get_stream_writer()
    node_context = contextvars.copy_context()

    def progress(event: PushProgress) -> None:
        node_context.run(writer, {"progress": asdict(event)})

    return progress
