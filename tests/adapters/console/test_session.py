"""A console session: `quit` or `exit` ends it, like Ctrl-D; neither is a change request."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from adapters.chat import ChatEvent, Request
from adapters.console.adapter import ConsoleAdapter


@pytest.mark.parametrize("word", ["quit", "exit", "  Exit  "])
async def test_quit_or_exit_ends_the_session_without_a_request(word: str) -> None:
    typed = f"help\n{word}\napply ospf to R1\n"
    adapter = ConsoleAdapter(Console(file=io.StringIO()), source=io.StringIO(typed))
    handled: list[ChatEvent] = []

    async def handle(event: ChatEvent) -> None:
        handled.append(event)

    await adapter.run(handle)
    assert [e.text for e in handled if isinstance(e, Request)] == ["help"]
    assert len(handled) == 1  # nothing after the word was read


async def test_a_request_mentioning_exit_is_still_a_request() -> None:
    adapter = ConsoleAdapter(
        Console(file=io.StringIO()), source=io.StringIO("configure exit interface on R1\n")
    )
    handled: list[ChatEvent] = []

    async def handle(event: ChatEvent) -> None:
        handled.append(event)

    await adapter.run(handle)
    assert [e.text for e in handled if isinstance(e, Request)] == ["configure exit interface on R1"]
