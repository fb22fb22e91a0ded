"""`labbot pending [--user ID]`: the open steps a person may decide, read from storage (you at
the console when no one is named)."""

from __future__ import annotations

from adapters.chat import Actor
from adapters.user_ids import canonical_user_id
from bot import messages
from bot.cli.console import os_user
from bot.policy.open_gates import pending_for, pending_text
from bot.records.place import database_place, demo_is_here
from bot.runtime.reading import reading_runtime
from bot.settings import Settings


async def pending_report(settings: Settings, user: str) -> str:
    """What `user` (a platform user id: U0123, @alice:example.org, console:alice) may decide.

    The command line cannot ask Slack or Matrix about groups and power levels: rules naming
    them count as not met here (chat's `pending` asks the platform)."""
    async with reading_runtime(settings) as runtime:
        service = runtime.service
        found = await pending_for(
            Actor(user, user),
            workflow=service.workflow,
            audit=runtime.audit,
            authorizer=service.authorizer,
        )
        text = pending_text(found, service.clock())
    if not found.to_decide and not found.requested:
        where = database_place(settings)
        text += "\n" + messages.PENDING_NONE_IN.format(where=where) + demo_is_here(settings)
    return text


def you_at_the_console() -> str:
    """`console:OS-USER`: the process's user, as `labbot console` seats it (not $USER)."""
    return canonical_user_id(f"console:{os_user()}")
