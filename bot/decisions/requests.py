"""Requests in a thread: the size door, chat commands (each given a narrow `CommandContext`) and
the start of a change — authorized, then recorded within the caps on open changes and planned
under the thread's lock."""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from functools import partial

from adapters.chat import CHANGE_ID_PREFIX, ChatEvent, Message, Request
from bot import messages
from bot.commands.context import CommandContext, Commands
from bot.commands.parsing import Command, CommandError
from bot.commands.registry import help_text, parse_command
from bot.decisions.reporter import ChangeReporter
from bot.policy.agent_principals import is_agent_id
from bot.policy.authorize import Authorizer
from bot.policy.request_limits import RequestLimits, open_caps, refuse_open, refuse_size
from bot.ports import ChangeRunner, ThreadLock
from storage.audit_records import CapReached
from storage.ports import DecisionRecords
from workflow.state import Requester

__all__ = ["RequestDesk"]

Decide = Callable[[ChatEvent], Awaitable[None]]


def new_change_id() -> str:
    return CHANGE_ID_PREFIX + secrets.token_hex(4)


@dataclass(frozen=True)
class Started:
    """What became of a request to start a change: its id, or why it was not started."""

    change_id: str = ""
    refused: str = ""  # the sentence the person was told


@dataclass(frozen=True)
class RequestDesk:
    """Where a request goes: a command to its handler (unknown ones get the help), anything
    else starts a change."""

    workflow: ChangeRunner
    audit: DecisionRecords
    reporter: ChangeReporter
    authorizer: Authorizer
    thread_lock: ThreadLock
    clock: Callable[[], datetime]
    limits: RequestLimits
    commands: Commands | None = None

    async def handle(self, request: Request, decide: Decide) -> None:
        """A change request or a command; a mistake in it is answered in the thread. `decide`:
        where a command's decision goes (the service's entry point, as a click's would)."""
        too_long = refuse_size(self.limits, request.text)
        if too_long:  # neither stored nor echoed: the refusal names only the size
            await self.reporter.refuse(request.actor, request.thread, too_long, about="request")
            return
        try:
            command = parse_command(request.text)
            if command is None:
                await self.start_change(request, request.text)
            else:
                await self._command(request, command, decide)
        except CommandError as exc:
            await self.reporter.say(request.thread, Message(str(exc), level="error"))

    async def _command(self, request: Request, command: Command, decide: Decide) -> None:
        commands = self.commands
        handler = commands.handlers.get(command.name) if commands is not None else None
        if commands is None or handler is None:
            await self.reporter.say(request.thread, Message(help_text()))
            return
        await handler(self._context(request, command, commands, decide))

    def _context(
        self, request: Request, command: Command, commands: Commands, decide: Decide
    ) -> CommandContext:
        """What a command may do: speak in its thread, read the thread's change, and start or
        decide one through the same doors as everyone else."""
        return CommandContext(
            request=request,
            command=command,
            say=partial(self.reporter.say, request.thread),
            show=partial(self.reporter.present, request.thread),
            refuse=partial(self.reporter.refuse, request.actor, request.thread, about=command.name),
            may_curate=partial(self._may_curate, request),
            start_change=partial(self.start_change, request),
            decide=decide,
            changes=commands.changes,
            audit=commands.audit,
            authorizer=self.authorizer,
            clock=self.clock,
            mask=self.reporter.mask,
            templates=commands.templates,
            pictures=commands.pictures,
        )

    async def _may_curate(self, request: Request) -> bool:
        """Saving and pinning templates change what later changes use: approvers only. A refusal
        is told to the person and recorded."""
        reason = await self.authorizer.refuse_curation(request)
        return not await self.reporter.refuse_if(request.actor, request.thread, reason)

    async def start_change(
        self, request: Request, text: str, rollback_of: str | None = None
    ) -> Started:
        """Start a change: its id once recorded and planned, or why not (refused: told and
        recorded; another change waits in the thread: said there)."""
        thread = request.thread
        reason = await self.authorizer.refuse_request(request)
        if reason:
            await self.reporter.refuse(request.actor, thread, reason, about="request")
            return Started(refused=reason)
        async with self.thread_lock(thread.key):  # one start per thread at a time
            return await self._start_locked(request, text, rollback_of)

    async def _start_locked(self, request: Request, text: str, rollback_of: str | None) -> Started:
        thread = request.thread
        pending = await self.workflow.pending_gate(thread.key)
        if pending is not None:
            busy = messages.PENDING_IN_THREAD.format(change_id=pending.change_id)
            await self.reporter.say(thread, Message(busy))
            return Started(refused=busy)
        change_id = new_change_id()
        recorded = await self.audit.record_change(
            change_id,
            caps=open_caps(self.limits, self.clock()),
            thread_key=thread.key,
            platform=thread.platform,
            channel=thread.channel,
            requester_id=request.actor.id,
            requester_name=request.actor.name,
            text=text,
            kind="rollback" if rollback_of else "change",
            rollback_of=rollback_of,
            lab=self.authorizer.lab,
        )
        if isinstance(recorded, CapReached):
            agent = is_agent_id(request.actor.id)
            reason = messages.REFUSED.format(reason=refuse_open(recorded, agent=agent))
            await self.reporter.refuse(request.actor, thread, reason, about="request")
            return Started(refused=reason)
        note = (
            messages.ROLLBACK_PLANNING.format(change_id=rollback_of)
            if rollback_of
            else messages.PLANNING
        )
        note_id = await self.reporter.say(thread, Message(note))
        step = await self.workflow.start(
            thread.key,
            change_id=change_id,
            text=text,
            requester=Requester(id=request.actor.id, name=request.actor.name),
            rollback_of=rollback_of,
            on_progress=self.reporter.progress(thread, change_id, working=(note_id, note)),
            scope=f"{thread.platform}:{thread.channel}",
        )
        await self.reporter.present(thread, step)
        return Started(change_id)
