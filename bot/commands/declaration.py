"""A chat command declared once: the words that call it (or how its text is recognised), its
lines in `help` (a sentence of bot/messages) and its handler, built from what the wiring gives
the commands. Each command module declares its own; bot.commands.registry lists them.

Light on purpose: the command line imports the template library's module (and so this one)
without the workflow (the handler's types are only checked).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from bot.commands.context import CommandContext, CommandHandler
    from storage.template_store import TemplateStore
    from workflow.library.catalog import Catalog
    from workflow.ports import LabReader

# a command without a word: its arguments when the whole text is it, else None
Recognise = Callable[[str], tuple[str, ...] | None]


class LabReads(Protocol):
    """What the commands use of the lab's reads (bot/commands/reads.py:ReadCommand): the handler
    of the read verbs, and the lab it reads."""

    @property
    def lab(self) -> LabReader: ...

    async def __call__(self, ctx: CommandContext) -> None: ...


@dataclass(frozen=True)
class CommandKit:
    """What the wiring gives the commands: the built-in templates, the team's library (when
    there is one) and the lab's reads (when there is a lab)."""

    catalog: Catalog
    templates: TemplateStore | None = None
    reads: LabReads | None = None


# the handler built from the kit; None: not served here (the command is answered with `help`)
Bind = Callable[[CommandKit], "CommandHandler | None"]


@dataclass(frozen=True)
class ChatCommand:
    """One command. Called by a first word — its `name` or one of its `aliases`, in any case,
    the words after it its arguments (as a shell splits them) — or, with `recognise`, by the
    whole text (a decision by id, a device command, a question about the lab)."""

    name: str
    handler: Bind
    help: str = ""  # its lines in `help` (messages.HELP_…); "": not listed
    aliases: tuple[str, ...] = ()
    recognise: Recognise | None = None
    # `recognise` is tried before the command words: `cancel chg-…` decides that change, it is
    # not `cancel` (this thread's); else it is tried only when the first word is no command's
    ahead: bool = False

    @property
    def words(self) -> tuple[str, ...]:
        """The first words that call it (none when it is recognised by its whole text)."""
        return () if self.recognise is not None else (self.name, *self.aliases)


def always(handler: CommandHandler) -> Bind:
    """A handler that needs nothing of the kit."""
    return lambda _kit: handler
