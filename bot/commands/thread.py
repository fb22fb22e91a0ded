"""Commands about the thread's own change: `help`, `status`, `cancel`, `rollback CHANGE`."""

from __future__ import annotations

from adapters.chat import Decision, Message
from bot import messages, presenter
from bot.commands.context import CommandContext
from bot.commands.parsing import CommandError


async def help_command(ctx: CommandContext) -> None:
    await ctx.say(Message(messages.HELP))


async def status_command(ctx: CommandContext) -> None:
    gate = await ctx.changes.pending_gate(ctx.thread_key)
    if gate is not None:
        await ctx.show(gate)
        return
    outcome = await ctx.changes.outcome(ctx.thread_key)
    if outcome is None:
        await ctx.say(Message(messages.NOTHING_PENDING))
        return
    await ctx.say(presenter.present_status(outcome))


async def cancel_command(ctx: CommandContext) -> None:
    """Cancel is a click on the pending gate's Cancel: the same policy, record and resume."""
    gate = await ctx.changes.pending_gate(ctx.thread_key)
    if gate is None:
        await ctx.say(Message(messages.NOTHING_PENDING))
        return
    request = ctx.request
    await ctx.decide(
        Decision(request.thread, request.actor, gate.interrupt_id, "cancel", gate.sha256)
    )


async def rollback_command(ctx: CommandContext) -> None:
    if len(ctx.command.args) != 1:
        raise CommandError(messages.ROLLBACK_USAGE)
    change_id = ctx.command.args[0]
    if await ctx.audit.change_summary(change_id) is None:
        raise CommandError(messages.UNKNOWN_CHANGE.format(change_id=change_id))
    await ctx.start_change(f"rollback {change_id}", change_id)
