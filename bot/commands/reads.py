"""`show … on DEVICES`: read-only commands on the lab's devices, answered in the thread, no gate.

A known question in plain words ("neighbours on R1", "bgp summary on all routers") is the same
read with each device's own command for it (workflow.reads.questions); any other question goes
to the LLM when one is configured, which may only read (workflow.reads.diagnose).

Reads follow the same policy as change requests (bot.policy.authorize: LABBOT_REQUESTERS; a direct
message needs a rule). The command is checked against the platform's allow-list for every
device it names before anything is sent (workflow.reads); a refusal is told to the person and
recorded, and nothing reaches a device. Every read is recorded in the audit BEFORE it is sent
(who, device, command), and a person may send at most LABBOT_MAX_READS_PER_MINUTE device reads
a minute (counted and recorded in one transaction).

What comes back is bounded (bot.views.read.OutputBounds: a head plus a file, or refused) and
presented off the event loop (the worker processes, when there are any); a channel may have
LABBOT_READ_CHANNEL_BUDGET characters of reads posted a minute (bot.commands.read_budget: in the
database, one budget for every replica).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from adapters.chat import Message
from base.errors import PlanningError, ReadRefused, TargetError
from bot import messages
from bot.commands.context import CommandContext
from bot.commands.declaration import ChatCommand, CommandKit, LabReads, always
from bot.commands.parsing import ASK, DEVICE
from bot.commands.read_budget import ChannelBudget
from bot.views import read as read_view
from bot.views.ending import target_problem
from bot.views.read import OutputBounds
from storage.read_budget_store import BudgetLimit
from workflow.model import Device, StandardResponse
from workflow.ports import LabReader
from workflow.reads.device_commands import device_command
from workflow.reads.questions import as_question, is_free_question
from workflow.reads.request import ReadRequest, question_request, read_request
from workflow.reads.tables import command_to_send

if (
    TYPE_CHECKING
):  # the LLM client (~1 s to import) loads when an LLM is configured (bot.runtime.wiring)
    from workflow.reads.diagnose import LabDiagnosis

__all__ = ["READS", "ReadCommand", "ReadLimits"]

RATE_WINDOW = timedelta(minutes=1)
# runs a picklable function off the event loop: the worker pool's `run`, else a thread
Offload = Callable[..., Awaitable[Any]]


@dataclass(frozen=True)
class ReadLimits:
    max_targets: int = 50  # devices one read may name (LABBOT_MAX_TARGETS)
    per_minute: int = 30  # device reads per person a minute (LABBOT_MAX_READS_PER_MINUTE)
    output: OutputBounds = field(default_factory=OutputBounds)  # each device's output shown


@dataclass(frozen=True)
class DeviceReads:
    """A read as sent: what was asked, each device's command, and what came back."""

    request: ReadRequest
    sent: dict[str, str]
    response: StandardResponse


@dataclass(frozen=True)
class ReadCommand:
    """The handler of the read verbs (`show`, `display`, `ping`, `run`) and of questions."""

    lab: LabReader
    budget: ChannelBudget
    limits: ReadLimits = ReadLimits()
    diagnosis: LabDiagnosis | None = None  # with an LLM: free questions
    offload: Offload = asyncio.to_thread

    async def __call__(self, ctx: CommandContext) -> None:
        if not await self.admitted(ctx):  # before the lab is asked anything
            return
        devices, _, _ = await self.lab.devices()
        if ctx.command.name == ASK and as_question(ctx.request.text) is None:
            await self._diagnose(ctx, devices)
            return
        # a channel whose budget is spent has nothing sent to any device
        done = await self.read(ctx, devices, self.budget.admitting(ctx.clock()))
        if done is None:
            return
        bounds = self.limits.output
        shown = await self.offload(
            read_view.present_reads, done.request, done.sent, done.response, ctx.mask, bounds
        )
        chars = read_view.posted_chars(shown)
        over = await self.budget.take(ctx.request.thread, chars, ctx.clock())
        if over is None:
            await ctx.say(shown)
        else:
            await self._refuse_budget(ctx, over, chars)

    async def admitted(self, ctx: CommandContext) -> bool:
        """Whether this person may read the lab here; a refusal is told and recorded."""
        refused = await ctx.authorizer.refuse_request(ctx.request)
        if refused:
            await ctx.refuse(refused)
        return not refused

    async def read(
        self, ctx: CommandContext, devices: list[Device], budget: BudgetLimit | None = None
    ) -> DeviceReads | None:
        """The read the request asks for, checked against every device's allow-list (and the
        channel's `budget` when it posts there), recorded and sent; None when it is refused
        (told and recorded through `ctx.refuse`)."""
        try:
            request = _request(ctx, devices, self.limits.max_targets)
        except TargetError as unclear:  # an unknown device, none named
            await ctx.refuse(messages.REFUSED.format(reason=target_problem(unclear)))
            return None
        except ReadRefused as not_read:
            await ctx.refuse(messages.REFUSED.format(reason=read_view.read_refusal(not_read)))
            return None
        except PlanningError as refused:
            await ctx.refuse(messages.REFUSED.format(reason=str(refused).rstrip(".")))
            return None
        sent = _to_send(request)
        response = await self.send(ctx, sent, budget)
        return None if response is None else DeviceReads(request, sent, response)

    async def _refuse_budget(self, ctx: CommandContext, spent: int, chars: int) -> None:
        over = messages.READ_BUDGET_SPENT.format(spent=spent, asked=chars, limit=self.budget.limit)
        await ctx.refuse(messages.REFUSED.format(reason=over))

    async def send(
        self, ctx: CommandContext, sent: dict[str, str], budget: BudgetLimit | None = None
    ) -> StandardResponse | None:
        """Record the reads, then send them; None (the person refused) over the rate limit or
        the channel's `budget`, checked and recorded in one transaction."""
        actor, thread = ctx.request.actor, ctx.request.thread
        limit = self.limits.per_minute
        refused = await ctx.audit.record_reads(
            actor_id=actor.id,
            actor_name=actor.name,
            platform=thread.platform,
            channel=thread.channel,
            sent=sent,
            since=ctx.clock() - RATE_WINDOW,
            limit=limit,
            budget=budget,
        )
        if refused is None:
            return await self.lab.read(sent)
        if refused.scope == "budget":
            await self._refuse_budget(ctx, refused.count, 0)
        else:
            over = messages.TOO_MANY_READS.format(count=refused.count, asked=len(sent), limit=limit)
            await ctx.refuse(messages.REFUSED.format(reason=over))
        return None

    async def _diagnose(self, ctx: CommandContext, devices: list[Device]) -> None:
        if self.diagnosis is None:
            await ctx.say(Message(messages.NO_LLM_QUESTION))
            return
        found = await self.diagnosis.answer(
            ctx.request.text, devices, lambda sent: self.send(ctx, sent)
        )
        shown = read_view.present_diagnosis(found.answer, found.reads, found.proposal, ctx.mask)
        await ctx.say(shown)
        if found.proposal:  # a change is never made here: it starts at the first gate
            await ctx.start_change(found.proposal, None)


async def refuse_device_command(ctx: CommandContext) -> None:
    """A device command that is no read (`do reload`, `copy run tftp://…`): refused with what
    it would do, before anything is planned or sent; the refusal is recorded."""
    (why,) = ctx.command.args  # the message is not echoed: it may hold a URL's password
    reason = messages.DEVICE_COMMAND.format(why=why)
    await ctx.refuse(messages.REFUSED.format(reason=reason))


def the_reads(kit: CommandKit) -> LabReads | None:
    """The lab's reads (none without a lab: answered with the help)."""
    return kit.reads


def refused_device_command(text: str) -> tuple[str, ...] | None:
    """A device command that is no read: (why it is refused,)."""
    why = device_command(text)
    return None if why is None else (why,)


def lab_question(text: str) -> tuple[str, ...] | None:
    """A question about the lab, known ("neighbours on R1") or free (for the LLM)."""
    return () if as_question(text) is not None or is_free_question(text) else None


READS = ChatCommand(
    "show",
    the_reads,
    help=messages.HELP_READS,
    aliases=("sh", "display", "ping", "traceroute", "run"),  # `run CLI-COMMAND on R1`: any verb
)
DEVICE_COMMANDS = ChatCommand(
    DEVICE, always(refuse_device_command), recognise=refused_device_command
)
QUESTIONS = ChatCommand(ASK, the_reads, help=messages.HELP_QUESTIONS, recognise=lab_question)


def _request(ctx: CommandContext, devices: list[Device], max_targets: int) -> ReadRequest:
    text = ctx.request.text.lstrip(" ")
    question = as_question(text) if ctx.command.name == ASK else None
    if question is not None:
        return question_request(*question, devices, max_targets)
    if ctx.command.name == "run":  # `run show ip route on R1`: the words after `run`
        text = text[len("run") :]
    return read_request(text, devices, max_targets)


def _to_send(request: ReadRequest) -> dict[str, str]:
    return {
        name: command_to_send(request.platforms[name], command, request.raw)
        for name, command in request.commands.items()
    }
