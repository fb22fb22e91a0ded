"""The `pending` command: the open steps the asker may decide anywhere on this platform, and the
changes they asked for that still wait (in a lab of LABBOT_LABS, that lab's only)."""

from __future__ import annotations

from adapters.chat import Message
from bot import messages
from bot.commands.context import CommandContext
from bot.commands.declaration import ChatCommand, always
from bot.policy.open_gates import pending_for, pending_text


async def pending_command(ctx: CommandContext) -> None:
    found = await pending_for(
        ctx.request.actor,
        workflow=ctx.changes,
        audit=ctx.audit,
        authorizer=ctx.authorizer,
        platform=ctx.request.thread.platform,
        seen=ctx.authorizer.sees,
    )
    await ctx.say(Message(pending_text(found, ctx.clock())))


PENDING = ChatCommand("pending", always(pending_command), help=messages.HELP_PENDING)
