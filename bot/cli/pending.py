"""`labbot pending [--user ID] [--lab NAME]`: the open steps a person may decide, read from
storage (you at the console when no one is named); under a labs file (LABBOT_LABS) grouped by
lab, each lab's steps judged by that lab's rules."""

from __future__ import annotations

from adapters.chat import Actor
from adapters.user_ids import canonical_user_id
from bot import messages
from bot.cli.console import os_user
from bot.labs.lab_option import refuse_lab_without_labs
from bot.labs.lab_settings import configured_labs, lab_named
from bot.policy.lab_gates import pending_by_lab
from bot.policy.open_gates import pending_for, pending_text
from bot.records.place import database_place, demo_is_here
from bot.runtime.reading import lab_authorizers, reading_runtime
from bot.settings import Settings


async def pending_report(settings: Settings, user: str, lab: str | None = None) -> str:
    """What `user` (a platform user id: U0123, @alice:example.org, console:alice) may decide;
    `lab`: in that lab of LABBOT_LABS only.

    The command line cannot ask Slack or Matrix about groups and power levels: rules naming
    them count as not met here (chat's `pending` asks the platform)."""
    refuse_lab_without_labs(settings, lab)
    if settings.labs is not None:
        return await _by_lab(settings, user, lab)
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


async def _by_lab(settings: Settings, user: str, only: str | None) -> str:
    """Per lab the person is among the people of (or may decide in), its steps and theirs."""
    labs = await configured_labs(settings)
    chosen = (lab_named(labs, only),) if only else labs
    async with reading_runtime(settings) as runtime:
        groups = await pending_by_lab(
            Actor(user, user),
            lab_authorizers(settings, chosen, labs, runtime.audit),
            workflow=runtime.workflow,
            audit=runtime.audit,
            always=(only,) if only else (),
        )
        now = runtime.service.clock()
    if not groups:
        names = ", ".join(lab.name for lab in labs)
        return messages.PENDING_NO_LAB.format(user=user, labs=names)
    lines = []
    for group in groups:
        lines.append(messages.PENDING_LAB.format(lab=group.lab))
        lines += ["  " + line for line in pending_text(group.pending, now).splitlines()]
    return "\n".join(lines)


def you_at_the_console() -> str:
    """`console:OS-USER`: the process's user, as `labbot console` seats it (not $USER)."""
    return canonical_user_id(f"console:{os_user()}")
