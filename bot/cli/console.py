"""`labbot console`: the console chat on the configured lab, as the OS user, with the same
gates, policy and audit as a chat platform; and what every console session (the demo's too)
shares: where its lines come from (the keyboard, `--script FILE`, a file or a pipe on stdin)
and the line it starts with, what earlier sessions left waiting for a decision."""

from __future__ import annotations

import io
import os
import pwd
import stat
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from rich.console import Console

from adapters.console.adapter import ConsoleAdapter
from adapters.console.render import styled
from adapters.user_ids import canonical_user_id
from base.errors import ConfigError
from bot import messages
from bot.commands.registry import command_words
from bot.labs.lab_option import lab_shown, refuse_lab_without_labs
from bot.labs.lab_settings import chosen_lab
from bot.policy.approvers import refuse_look_alikes
from bot.policy.open_gates import open_gates
from bot.records.place import database_shown
from bot.runtime.lab_router import lab_policy
from bot.runtime.wiring import Runtime, make_inventory, open_runtime
from bot.settings import Settings

PLATFORM = "console"
SCRIPT_WIDTH = 110  # a chat read from a script is printed this wide, whatever reads it


@dataclass(frozen=True)
class ChatInput:
    """Where a console session's lines come from, and how they are shown."""

    source: TextIO
    scripted: bool  # written beforehand: each line echoed after the prompt, plain, no colour

    def console(self) -> Console:
        if self.scripted:
            return Console(highlight=False, no_color=True, width=SCRIPT_WIDTH)
        return Console(highlight=False)


def chat_input(script: Path | None) -> ChatInput:
    """`--script FILE`'s lines; else stdin's: a person at a terminal, or a chat written
    beforehand (`labbot console < FILE`, a pipe), read one chat line per line like a script.
    A file is read at once (the event loop cannot wait on a regular file); a pipe is read as
    its lines come."""
    if script is not None:
        return ChatInput(_read_script(script), scripted=True)
    if sys.stdin.isatty():
        return ChatInput(sys.stdin, scripted=False)
    if stat.S_ISREG(os.fstat(sys.stdin.fileno()).st_mode):
        return ChatInput(io.StringIO(sys.stdin.read()), scripted=True)
    return ChatInput(sys.stdin, scripted=True)


def _read_script(script: Path) -> TextIO:
    try:
        return io.StringIO(script.read_text(encoding="utf-8"))
    except OSError as exc:
        said = messages.SCRIPT_UNREADABLE.format(path=str(script), why=exc.strerror)
        raise ConfigError(said) from None


async def session_line(runtime: Runtime, *, leaving: bool = False) -> str:
    """One line: at the start, starting clean or which earlier changes wait and how to decide
    them by id; when `leaving`, which changes stay pending ("" for none)."""
    here = runtime.audit.lab
    waiting = [
        shown
        for shown, _, change in await open_gates(runtime.workflow, runtime.audit, PLATFORM)
        if not here or not change.lab or change.lab == here  # another lab's: decided there
    ]
    if not waiting:
        return "" if leaving else messages.SESSION_CLEAN
    changes = ", ".join(
        messages.SESSION_GATE.format(change_id=item.change_id, gate=item.gate) for item in waiting
    )
    said = messages.SESSION_LEFT_WAITING if leaving else messages.SESSION_RESUMED
    return said.format(count=len(waiting), changes=changes, first=waiting[0].change_id)


async def run_session(console: Console, adapter: ConsoleAdapter, runtime: Runtime) -> None:
    """The session between its first line and its last: what waits from before, the chat,
    then what stays waiting (a change left at a gate is never dropped silently)."""
    console.print(styled(await session_line(runtime)))
    await adapter.run(runtime.service.handle)
    if farewell := await session_line(runtime, leaving=True):
        console.print(styled(farewell))


def os_user() -> str:
    """The process's user, who sits at the console (not $USER: an environment variable names
    anyone)."""
    return pwd.getpwuid(os.getuid()).pw_name


async def run_console(
    settings: Settings,
    *,
    first_lines: tuple[str, ...] = (),
    script: Path | None = None,
    lab: str | None = None,
) -> None:
    """The console chat on the configured lab until `quit`, the input's end or Ctrl-C twice,
    its lines typed, or read from `script` or a non-terminal stdin (`chat_input`). The user is
    the OS user (the process's, not $USER: an environment variable names anyone); `as NAME`
    only for those LABBOT_CONSOLE_USERS lists (`labbot rollback` types its `rollback CHANGE`
    as the first line). `lab`: that lab of LABBOT_LABS, its devices, people and limits (as in
    its channels); refused in one line without a labs file or when no lab has the name."""
    refuse_lab_without_labs(settings, lab)
    lab_name, policy, shown = "", None, ""
    if lab is not None:
        chosen = await chosen_lab(settings, lab)
        settings, lab_name = chosen.settings, chosen.lab.name
        policy = lab_policy(chosen.settings, chosen.lab, chosen.labs)
        shown = messages.CONSOLE_LAB_NAMED.format(name=lab_name)
    chat = chat_input(script)
    console = chat.console()
    user = os_user()
    console_ids = [canonical_user_id(f"console:{name}") for name in settings.console_users]
    seats = frozenset(seat.removeprefix("console:") for seat in console_ids)
    refuse_look_alikes("LABBOT_CONSOLE_USERS", (f"console:{n}" for n in (user, *seats)))
    adapter = ConsoleAdapter(
        console,
        user=user,
        source=chat.source,
        echo_input=chat.scripted,
        first_lines=list(first_lines),
        files_dir=settings.data_dir / "files",
        command_words=command_words(),
        seats=seats,
    )
    inventory = make_inventory(settings)  # no lab named: said before any database is made
    async with open_runtime(
        settings, adapter, inventory=inventory, lab_name=lab_name, policy=policy
    ) as runtime:
        welcome = messages.CONSOLE_WELCOME.format(
            lab=shown + lab_shown(settings),
            db=database_shown(settings.database_url),
            user=adapter.user,
            seats=", ".join(sorted(seats)) or messages.NO_SEATS_LISTED,
        )
        console.print(styled(welcome))
        await run_session(console, adapter, runtime)
