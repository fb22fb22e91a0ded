"""How the `labbot` command shows itself: `--version`, and flags in --help without a type after
them (a flag takes no value; Typer would print `<bool>`)."""

from __future__ import annotations

from typing import Any

import typer


def print_version(asked: bool) -> None:
    if asked:
        from importlib.metadata import version

        typer.echo(f"labbot {version('labbot')}")
        raise typer.Exit()


def plain_flags(command: Any) -> Any:
    """A flag takes no value: --help shows none after it (Typer would print `<bool>`)."""
    for param in [*command.params, command.get_help_option(command.context_class(command))]:
        if getattr(param, "is_flag", False):
            param.metavar = ""
    for sub in getattr(command, "commands", {}).values():
        plain_flags(sub)
    return command
