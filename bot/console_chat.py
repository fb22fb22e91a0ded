"""`labbot console`: the console chat on the configured lab, as the OS user, with the same
gates, policy and audit as a chat platform; and the line every console session (the demo's
too) starts with: what earlier sessions left waiting for a decision."""

from __future__ import annotations

import os
import pwd

from rich.console import Console

from adapters.console.adapter import ConsoleAdapter
from adapters.console.render import styled
from bot import messages
from bot.data_place import database_shown
from bot.open_gates import open_gates
from bot.settings import Settings
from bot.wiring import Runtime, make_inventory, open_runtime

PLATFORM = "console"


def lab_shown(settings: Settings) -> str:
    if settings.gns3_url:
        return messages.CONSOLE_LAB_GNS3.format(
            project=settings.gns3_project, url=settings.gns3_url
        )
    return messages.CONSOLE_LAB_FILE.format(path=settings.inventory)


async def session_line(runtime: Runtime) -> str:
    """One line: starting clean, or which earlier changes wait and how to decide them by id."""
    waiting = [shown for shown, _, _ in await open_gates(runtime.workflow, runtime.audit, PLATFORM)]
    if not waiting:
        return messages.SESSION_CLEAN
    changes = ", ".join(
        messages.SESSION_GATE.format(change_id=item.change_id, gate=item.gate) for item in waiting
    )
    return messages.SESSION_RESUMED.format(
        count=len(waiting), changes=changes, first=waiting[0].change_id
    )


async def run_console(settings: Settings, *, first_lines: tuple[str, ...] = ()) -> None:
    """The console chat on the configured lab until `quit`, Ctrl-D or Ctrl-C twice. The user is
    the OS user (the process's, not $USER: an environment variable names anyone); `as NAME`
    only for those LABBOT_CONSOLE_USERS lists (`labbot rollback` types its `rollback CHANGE`
    as the first line)."""
    console = Console(highlight=False)
    seats = frozenset(name.casefold() for name in settings.console_users)
    adapter = ConsoleAdapter(
        console,
        user=pwd.getpwuid(os.getuid()).pw_name,
        first_lines=list(first_lines),
        files_dir=settings.data_dir / "files",
        seats=seats,
    )
    inventory = make_inventory(settings)  # no lab named: said before any database is made
    async with open_runtime(settings, adapter, inventory=inventory) as runtime:
        welcome = messages.CONSOLE_WELCOME.format(
            lab=lab_shown(settings),
            db=database_shown(settings.database_url),
            user=adapter.user,
            seats=", ".join(sorted(seats)) or messages.NO_SEATS_LISTED,
        )
        console.print(styled(welcome))
        console.print(styled(await session_line(runtime)))
        await adapter.run(runtime.service.handle)
