"""The chat commands by name: what bot.runtime.wiring hands the decision service."""

from __future__ import annotations

from bot.commands.audit import audit_command
from bot.commands.context import CommandHandler
from bot.commands.lab import LabCommand
from bot.commands.parsing import ASK, DECIDE, DEVICE
from bot.commands.pending import pending_command
from bot.commands.reads import ReadCommand, refuse_device_command
from bot.commands.templates import catalog_command, save_command, templates_command
from bot.commands.thread import (
    cancel_command,
    decide_command,
    help_command,
    rollback_command,
    status_command,
)
from bot.commands.topology import topology_command
from storage.template_store import TemplateStore
from workflow.library.catalog import Catalog
from workflow.reads.allowlist import VERBS


def chat_commands(
    catalog: Catalog,
    templates: TemplateStore | None = None,
    reads: ReadCommand | None = None,
) -> dict[str, CommandHandler]:
    """The commands; with the team's template library, `templates` covers it and `save` works;
    with the lab's devices, the read verbs (`show … on R1`) answer without a gate and `lab`
    lists the inventory."""
    commands = {
        "help": help_command,
        "templates": catalog_command(catalog),
        "audit": audit_command,
        "status": status_command,
        "cancel": cancel_command,
        "pending": pending_command,
        "topology": topology_command,
        "lab": topology_command,
        "rollback": rollback_command,
        DECIDE: decide_command,
        DEVICE: refuse_device_command,
    }
    if templates is not None:
        commands["templates"] = templates_command(catalog, templates)
        commands["save"] = save_command(catalog, templates)
    if reads is not None:
        commands |= {verb: reads for verb in (*VERBS, "sh", "run", ASK)}
        commands["lab"] = LabCommand(reads.lab)
    return commands
