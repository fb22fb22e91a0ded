"""The commands people type in a thread: help, templates, audit, status, pending, cancel,
rollback."""

from __future__ import annotations

from adapters.chat import Decision, Message, Request
from bot import messages, presenter
from bot.audit_view import render_chat_table, render_summary
from bot.commands import Command, CommandError, parse_audit_args
from bot.pending import pending_for, pending_text
from bot.service import CommandHandler, DecisionService
from bot.template_commands import save_command
from bot.template_commands import templates_command as library_command
from storage.templates import TemplateStore
from workflow.library.catalog import Catalog


async def help_command(service: DecisionService, request: Request, command: Command) -> None:
    await service.say(request.thread, Message(messages.HELP))


def templates_command(catalog: Catalog) -> CommandHandler:
    async def handler(service: DecisionService, request: Request, command: Command) -> None:
        if not command.args:
            await service.say(request.thread, presenter.present_catalog(catalog))
            return
        await service.say(request.thread, presenter.present_template(catalog.get(command.args[0])))

    return handler


async def audit_command(service: DecisionService, request: Request, command: Command) -> None:
    flt = parse_audit_args(command.args)
    entries = await service.audit.entries(
        change_id=flt.change_id,
        user=flt.user,
        device=flt.device,
        since=flt.since,
        until=flt.until,
    )
    table = render_chat_table(entries)
    await service.say(
        request.thread, presenter.present_table(f"Audit: {len(entries)} record(s)", table)
    )
    summary = await service.audit.change_summary(flt.change_id) if flt.change_id else None
    if summary is not None:
        await service.say(
            request.thread, presenter.present_table("Who confirmed it", render_summary(summary))
        )


async def status_command(service: DecisionService, request: Request, command: Command) -> None:
    gate = await service.workflow.pending_gate(request.thread.key)
    if gate is not None:
        await service.present_step(request.thread, gate)
        return
    outcome = await service.workflow.outcome(request.thread.key)
    if outcome is None:
        await service.say(request.thread, Message(messages.NOTHING_PENDING))
        return
    await service.say(request.thread, presenter.present_status(outcome))


async def pending_command(service: DecisionService, request: Request, command: Command) -> None:
    """The open steps the asker may decide anywhere on this platform, and their own changes."""
    found = await pending_for(
        request.actor,
        workflow=service.workflow,
        audit=service.audit,
        authorizer=service.authorizer,
        platform=request.thread.platform,
    )
    await service.say(request.thread, Message(pending_text(found, service.clock())))


async def cancel_command(service: DecisionService, request: Request, command: Command) -> None:
    gate = await service.workflow.pending_gate(request.thread.key)
    if gate is None:
        await service.say(request.thread, Message(messages.NOTHING_PENDING))
        return
    await service.handle(
        Decision(request.thread, request.actor, gate.interrupt_id, "cancel", gate.sha256)
    )


async def rollback_command(service: DecisionService, request: Request, command: Command) -> None:
    if len(command.args) != 1:
        raise CommandError(messages.ROLLBACK_USAGE)
    change_id = command.args[0]
    if await service.audit.change_summary(change_id) is None:
        raise CommandError(messages.UNKNOWN_CHANGE.format(change_id=change_id))
    await service.start_change(request, f"rollback {change_id}", rollback_of=change_id)


def chat_commands(
    catalog: Catalog, templates: TemplateStore | None = None
) -> dict[str, CommandHandler]:
    """The commands; with the team's template library, `templates` covers it and `save` works."""
    commands = {
        "help": help_command,
        "templates": templates_command(catalog),
        "audit": audit_command,
        "status": status_command,
        "cancel": cancel_command,
        "pending": pending_command,
        "rollback": rollback_command,
    }
    if templates is not None:
        commands["templates"] = library_command(catalog, templates)
        commands["save"] = save_command(catalog, templates)
    return commands
