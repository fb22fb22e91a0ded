"""The `audit` command in chat: who confirmed which change, filtered like `labbot audit`; and
`audit report`, the HTML report attached to the thread. In a lab's channel (LABBOT_LABS) both
show that lab's changes only."""

from __future__ import annotations

import asyncio

from adapters.chat import FileAttachment, Message
from bot import messages
from bot.audit.report_data import gather_report
from bot.audit.report_html import render_report
from bot.audit.table import render_chat_table, render_summary
from bot.commands.context import CommandContext
from bot.commands.declaration import ChatCommand, always
from bot.commands.parsing import parse_audit_args
from bot.views.code_blocks import present_table

REPORT_NAME = "labbot-audit-report.html"


async def audit_command(ctx: CommandContext) -> None:
    if ctx.command.args[:1] == ("report",):
        await report_command(ctx)
        return
    flt = parse_audit_args(ctx.command.args)
    entries = await ctx.audit.entries(
        change_id=flt.change_id,
        user=flt.user,
        device=flt.device,
        since=flt.since,
        until=flt.until,
        lab=ctx.authorizer.policy.lab or None,  # a lab's channel sees its lab's rows only
    )
    table = render_chat_table(entries, ctx.mask)
    await ctx.say(present_table(messages.AUDIT_TABLE.format(count=len(entries)), table))
    # another lab's change: no row here, no summary
    summary = await ctx.audit.change_summary(flt.change_id) if flt.change_id and entries else None
    if summary is not None:
        await ctx.say(present_table(messages.AUDIT_SUMMARY, render_summary(summary, ctx.mask)))


async def report_command(ctx: CommandContext) -> None:
    """`audit report [since=DATE] [change=ID]`: the report of `labbot audit report`, attached
    (in a lab's channel, `--lab` of that lab)."""
    flt = parse_audit_args(ctx.command.args[1:])
    report = await gather_report(
        audit=ctx.audit,
        workflow=ctx.changes,
        templates=ctx.templates,
        generated_at=ctx.clock(),
        since=flt.since,
        change_id=flt.change_id,
        lab=ctx.authorizer.policy.lab or None,
    )
    page = await asyncio.to_thread(render_report, report, ctx.mask)
    text = messages.REPORT_ATTACHED.format(
        count=len(report.changes),
        chain=messages.CHAIN_OK if report.chain.ok else messages.CHAIN_BROKEN,
    )
    attached = FileAttachment(REPORT_NAME, page.encode(), "text/html")
    await ctx.say(Message(text, files=(attached,)))


AUDIT = ChatCommand("audit", always(audit_command), help=messages.HELP_AUDIT)
