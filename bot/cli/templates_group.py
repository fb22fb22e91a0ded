"""`labbot templates NAME` keeps working beside the sub-commands: an unknown first word is a
template name, shown with `templates show NAME`."""

from __future__ import annotations

from typing import Any

from typer.core import TyperGroup


class TemplatesGroup(TyperGroup):
    # Typer ships its own copy of click, whose types are private: hence Any.
    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        if args and args[0] not in self.commands and not args[0].startswith("-"):
            args = ["show", *args]
        return super().resolve_command(ctx, args)

    def format_usage(self, ctx: Any, formatter: Any) -> None:
        formatter.write_usage(ctx.command_path, "[NAME[@VERSION] | COMMAND] [ARGS]...")
