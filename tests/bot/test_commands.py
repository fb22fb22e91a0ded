from datetime import UTC, datetime

import pytest

from base.errors import VersionConflict
from bot import messages
from bot.commands.context import CommandContext
from bot.commands.declaration import ChatCommand, always
from bot.commands.parsing import AuditFilter, Command, CommandError, parse_audit_args
from bot.commands.registry import COMMANDS, chat_commands, command_words, help_text, parse_command
from bot.commands.templates import version_conflict_text
from workflow.library.catalog import load_catalog


@pytest.mark.parametrize(
    ("text", "name", "args"),
    [
        ("help", "help", ()),
        ("  Audit user=U2 device=R1", "audit", ("user=U2", "device=R1")),
        ("rollback chg-1234", "rollback", ("chg-1234",)),
        ("templates ospf", "templates", ("ospf",)),
    ],
)
def test_commands_are_recognised(text: str, name: str, args: tuple[str, ...]) -> None:
    command = parse_command(text)
    assert command is not None and (command.name, command.args) == (name, args)


@pytest.mark.parametrize("text", ["configure ospf on all routers", "", "helpful change please"])
def test_other_text_is_a_change_request(text: str) -> None:
    assert parse_command(text) is None


async def echo_command(ctx: CommandContext) -> None:
    """A command that is no labbot's, declared here as a new command module would."""


ECHO = ChatCommand("echo", always(echo_command), help="  echo TEXT    says TEXT", aliases=("say",))


def test_a_command_declared_once_is_parsed_listed_and_served() -> None:
    """Adding a command is its declaration (and its sentences): nothing else lists its words,
    its help or its handler."""
    declared = (*COMMANDS, ECHO)
    assert parse_command("Say hello there", declared) == Command("say", ("hello", "there"))
    assert parse_command("say hello there") is None  # undeclared: a change request
    assert help_text(declared) == f"{help_text()}\n{ECHO.help}"
    assert {"echo", "say"} <= command_words(declared)
    handlers = chat_commands(load_catalog(), declared=declared)
    assert handlers["echo"] is echo_command and handlers["say"] is echo_command


def test_the_help_lists_each_command_in_order_after_the_introduction() -> None:
    lines = [command.help for command in COMMANDS if command.help]
    assert help_text() == "\n".join((messages.HELP_INTRO, *lines))
    assert lines[0] == messages.HELP_HELP and lines[-1] == messages.HELP_QUESTIONS


def test_without_a_library_or_a_lab_their_commands_are_answered_with_the_help() -> None:
    handlers = chat_commands(load_catalog())
    assert {"save", "show", "run", "ask"}.isdisjoint(handlers)
    assert {"help", "templates", "lab", "decide", "device"} <= set(handlers)


def test_audit_filters_both_forms() -> None:
    flt = parse_audit_args(("change=chg-1", "--user", "U2", "since=2026-11-01"))
    assert flt == AuditFilter(change_id="chg-1", user="U2", since=datetime(2026, 11, 1, tzinfo=UTC))


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("colour=red",), "unknown filter"),
        (("since=yesterday",), "not a date"),
        (("--user",), "needs a value"),
        (("R1",), "KEY=VALUE"),
    ],
)
def test_bad_audit_filters_say_what_is_wrong(args: tuple[str, ...], needle: str) -> None:
    with pytest.raises(CommandError, match=needle):
        parse_audit_args(args)


def test_a_version_that_is_not_free_is_refused_in_words() -> None:
    taken = VersionConflict("lab_ospf", 1, 3, "bob", "2026-11-30 07:15:03 UTC")
    assert version_conflict_text(taken) == (
        "lab_ospf@1 already exists (saved by bob at 2026-11-30 07:15:03 UTC); versions never "
        "change, so nothing was stored: save without a version to make it lab_ospf@3."
    )
    skipping = version_conflict_text(VersionConflict("lab_ospf", 7, 3))
    assert skipping == "lab_ospf@7 cannot be saved: the next version of lab_ospf is 3."
    assert "at the same moment" in version_conflict_text(VersionConflict("lab_ospf", None, 0))
