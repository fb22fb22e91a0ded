"""The `audit` command in chat: who confirmed which change, filtered like `labbot audit`."""

from __future__ import annotations

from bot import presenter
from bot.audit_view import render_chat_table, render_summary
from bot.commands.context import CommandContext
from bot.commands.parsing import parse_audit_args


async def audit_command(ctx: CommandContext) -> None:
    flt = parse_audit_args(ctx.command.args)
    entries = await ctx.audit.entries(
        change_id=flt.change_id,
        user=flt.user,
        device=flt.device,
        since=flt.since,
        until=flt.until,
    )
    table = render_chat_table(entries)
    await ctx.say(presenter.present_table(f"Audit: {len(entries)} record(s)", table))
    summary = await ctx.audit.change_summary(flt.change_id) if flt.change_id else None
    if summary is not None:
        await ctx.say(presenter.present_table("Who confirmed it", render_summary(summary)))
