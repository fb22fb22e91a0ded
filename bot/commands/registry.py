"""The chat commands, declared in their modules and listed here in the order `help` shows them;
what a text is (a command or a change request), the help, and the handlers bot.runtime.wiring
hands the decision service."""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from adapters.chat import Message
from bot import messages
from bot.commands.audit import AUDIT
from bot.commands.context import CommandContext, CommandHandler
from bot.commands.declaration import ChatCommand, CommandKit, always
from bot.commands.lab import LAB
from bot.commands.parsing import Command
from bot.commands.pending import PENDING
from bot.commands.reads import DEVICE_COMMANDS, QUESTIONS, READS, ReadCommand
from bot.commands.templates import SAVE, TEMPLATES
from bot.commands.thread import BY_ID, CANCEL, ROLLBACK, STATUS
from bot.commands.topology import TOPOLOGY
from storage.template_store import TemplateStore
from workflow.library.catalog import Catalog

__all__ = ["chat_commands", "command_words", "help_text", "parse_command"]


async def help_command(ctx: CommandContext) -> None:
    console = ctx.request.thread.platform == "console"  # its own words: `as NAME`, `quit`
    await ctx.say(Message(help_text() + (messages.CONSOLE_HELP if console else "")))


HELP = ChatCommand("help", always(help_command), help=messages.HELP_HELP)

COMMANDS: tuple[ChatCommand, ...] = (
    HELP,
    TEMPLATES,
    SAVE,
    AUDIT,
    STATUS,
    PENDING,
    TOPOLOGY,
    LAB,
    CANCEL,
    BY_ID,
    ROLLBACK,
    READS,
    DEVICE_COMMANDS,  # before QUESTIONS: `do reload?` is refused, not asked
    QUESTIONS,
)


def help_text(declared: Sequence[ChatCommand] = COMMANDS) -> str:
    """What `help` says: the introduction, then each command's lines."""
    return "\n".join((messages.HELP_INTRO, *(c.help for c in declared if c.help)))


def command_words(declared: Sequence[ChatCommand] = COMMANDS) -> frozenset[str]:
    """The first words that make a text a command (the console keeps it in its thread)."""
    return frozenset(word for command in declared for word in command.words)


def parse_command(text: str, declared: Sequence[ChatCommand] = COMMANDS) -> Command | None:
    """The command the text is — called by its first word, or recognised whole (a decision by
    id before any word; a device command or a question about the lab when the first word is no
    command's) — else None: a change request."""
    recognised = [c for c in declared if c.recognise is not None]
    for command in (c for c in recognised if c.ahead):
        found = _recognised(command, text)
        if found is not None:
            return found
    try:
        words = shlex.split(text.strip())
    except ValueError:
        words = text.split()
    if not words:
        return None
    first = words[0].lower()
    if any(first in command.words for command in declared):
        return Command(first, tuple(words[1:]))
    for command in (c for c in recognised if not c.ahead):
        found = _recognised(command, text)
        if found is not None:
            return found
    return None


def _recognised(command: ChatCommand, text: str) -> Command | None:
    args = command.recognise(text) if command.recognise is not None else None
    return None if args is None else Command(command.name, args)


def chat_commands(
    catalog: Catalog,
    templates: TemplateStore | None = None,
    reads: ReadCommand | None = None,
    declared: Sequence[ChatCommand] = COMMANDS,
) -> dict[str, CommandHandler]:
    """The handlers by the command's word (or name, for one recognised whole); with the team's
    template library, `templates` covers it and `save` works; with the lab's devices, the read
    verbs (`show … on R1`) answer without a gate and `lab` lists the inventory. A command not
    served here has no handler: it is answered with the help."""
    kit = CommandKit(catalog, templates, reads)
    handlers: dict[str, CommandHandler] = {}
    for command in declared:
        handler = command.handler(kit)
        if handler is not None:
            handlers |= dict.fromkeys(command.words or (command.name,), handler)
    return handlers
