"""Commands about a change: `status`, `cancel`, `rollback CHANGE`, and a decision on any open
change by its id (`approve|modify|cancel CHANGE [: TEXT]`)."""

from __future__ import annotations

from adapters.chat import Decision, Message, decision_by_id
from adapters.links import thread_of
from base.vocabulary import REPLY_WORDS
from bot import messages
from bot.commands.context import CommandContext
from bot.commands.declaration import ChatCommand, always
from bot.commands.parsing import DECIDE, CommandError
from bot.views import presenter


async def status_command(ctx: CommandContext) -> None:
    gate = await ctx.changes.pending_gate(ctx.thread_key)
    if gate is not None:
        await ctx.show(gate)
        return
    outcome = await ctx.changes.outcome(ctx.thread_key)
    if outcome is None:
        await ctx.say(Message(messages.NOTHING_PENDING))
        return
    await ctx.say(presenter.present_status(outcome, ctx.mask))


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
    summary = await ctx.audit.change_summary(change_id)
    if summary is None or not ctx.authorizer.sees(summary):  # another lab's: as unknown
        raise CommandError(messages.UNKNOWN_CHANGE.format(change_id=change_id))
    other_lab = ctx.authorizer.refuse_other_lab(summary)
    if other_lab:
        raise CommandError(other_lab)
    done = [e.change_id for e in summary.rollback_events if e.status == "done"]
    if done:  # its backups would be pushed again over what the devices hold now
        raise CommandError(messages.ROLLED_BACK_ALREADY.format(change_id=change_id, by=done[-1]))
    await ctx.start_change(f"rollback {change_id}", change_id)


async def decide_command(ctx: CommandContext) -> None:
    """A click on the open gate of change CHANGE, wherever its thread is on this platform: the
    same policy, record and resume as the button (the gate's own thread hears the outcome)."""
    choice, change_id, feedback = ctx.command.args
    change = await ctx.audit.change_summary(change_id)
    if (
        change is None
        or change.platform != ctx.request.thread.platform
        or not ctx.authorizer.sees(change)  # another lab's: as unknown
    ):
        raise CommandError(messages.UNKNOWN_CHANGE.format(change_id=change_id))
    gate = await ctx.changes.pending_gate(change.thread_key)
    if gate is None or gate.change_id != change_id:
        raise CommandError(messages.NOT_WAITING.format(change_id=change_id))
    if choice == "modify" and not feedback:
        raise CommandError(messages.MODIFY_BY_ID_USAGE.format(change_id=change_id))
    thread = thread_of(change.platform, change.channel, change.thread_key)
    await ctx.decide(
        Decision(
            thread,
            ctx.request.actor,
            gate.interrupt_id,
            REPLY_WORDS[choice],
            gate.sha256,
            feedback or None,
        )
    )


def by_id(text: str) -> tuple[str, ...] | None:
    """`approve|modify|cancel CHANGE [: TEXT]` -> (choice, change id, text or "")."""
    found = decision_by_id(text)
    if found is None:
        return None
    choice, change_id, feedback = found
    return (choice, change_id, feedback or "")


STATUS = ChatCommand("status", always(status_command), help=messages.HELP_STATUS)
CANCEL = ChatCommand("cancel", always(cancel_command), help=messages.HELP_CANCEL)
BY_ID = ChatCommand(
    DECIDE, always(decide_command), help=messages.HELP_DECIDE, recognise=by_id, ahead=True
)
ROLLBACK = ChatCommand("rollback", always(rollback_command), help=messages.HELP_ROLLBACK)
