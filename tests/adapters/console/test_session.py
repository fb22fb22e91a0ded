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


async def said_by(typed: str, seats: frozenset[str] | None) -> tuple[list[Request], str]:
    out = io.StringIO()
    adapter = ConsoleAdapter(
        Console(file=out, width=200), user="root", source=io.StringIO(typed), seats=seats
    )
    handled: list[Request] = []

    async def handle(event: ChatEvent) -> None:
        assert isinstance(event, Request)
        handled.append(event)

    await adapter.run(handle)
    return handled, out.getvalue()


async def test_as_sits_only_a_listed_user_and_ids_ignore_case() -> None:
    typed = "as mallory\nhelp\nas BOB\nhelp\nas root\nhelp\n"
    handled, said = await said_by(typed, frozenset({"bob", "carol"}))
    assert [(r.actor.id, r.actor.name) for r in handled] == [
        ("console:root", "root"),  # mallory may not sit here
        ("console:bob", "BOB"),  # the same person as `bob` in any policy
        ("console:root", "root"),  # back to who started the console
    ]
    assert "mallory may not sit at this console: LABBOT_CONSOLE_USERS lists bob, carol" in said


async def test_without_console_users_nobody_else_sits_but_the_demo_keeps_its_cast() -> None:
    handled, said = await said_by("as bob\nhelp\n", frozenset())
    assert [r.actor.id for r in handled] == ["console:root"]
    assert "list who else may in LABBOT_CONSOLE_USERS" in said
    handled, _ = await said_by("as bob\nhelp\n", None)
    assert [r.actor.id for r in handled] == ["console:bob"]


async def test_shell_habits_clear_the_screen_or_ask_for_help_never_a_request() -> None:
    out = io.StringIO()
    typed = "clear\nCLS\nls\n?\n--help\nclear the ospf config on R1\n"
    console = Console(file=out, width=200, force_terminal=True)
    adapter = ConsoleAdapter(console, source=io.StringIO(typed))
    handled: list[ChatEvent] = []

    async def handle(event: ChatEvent) -> None:
        handled.append(event)

    await adapter.run(handle)
    asked = [e.text for e in handled if isinstance(e, Request)]
    assert asked == ["help", "help", "clear the ospf config on R1"]
    assert out.getvalue().count("\x1b[2J") == 2  # the screen cleared for `clear` and `CLS`
    assert "`ls` is a shell command, not a labbot one: nothing was asked" in out.getvalue()
