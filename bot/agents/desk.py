"""The agents' desk: what the MCP tools do, through the same doors as people in chat.

One desk per lab (with many labs, bot.agents.scope says which an agent works in). Reads go
through the chat read command (bot.commands.reads: allow-list, refusals, per-actor rate limit,
recorded before they are sent; output masked as in chat). A change opens as a new thread in the
lab's place (LABBOT_MCP_CHANNEL, or the lab's channel on that platform; a `#name` opened by its
id), saying which agent asks on whose behalf,
and starts through the request desk (authorization with the principal's rights, the open-change
caps counted per agent). Nothing here decides: the authorizer refuses an agent at every gate.
Every call is counted against the agent's calls a minute and logged with agent and principal.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any

from adapters.chat import Actor, Decision, Message, PlaceIds, Request, ThreadRef
from adapters.links import thread_link, thread_of
from bot import messages
from bot.agents import views as agent_views
from bot.agents.bounds import KEPT_REASON_CHARS, change_column, cut, refuse_arguments, trace
from bot.commands.context import CommandContext, ThreadChange
from bot.commands.parsing import Command
from bot.commands.read_budget import ChannelBudget
from bot.commands.reads import READS, ReadCommand
from bot.commands.registry import parse_command
from bot.decisions.service import DecisionService
from bot.policy.agent_principals import Agent
from bot.policy.request_limits import refuse_size
from bot.views.read import masked_response
from storage.audit_records import ChangeRecord
from storage.audit_store import AuditStore
from storage.template_store import TemplateStore
from workflow.devices.reachability import probe
from workflow.library.catalog import Catalog

__all__ = ["AgentDesk"]

Json = dict[str, Any]
Progress = Callable[[float, float | None, str], Awaitable[None]]
READ_VERBS = frozenset(READS.words)
POLL_SECONDS = 1.0
LIVE = ("open", "running")  # a change in these states has not ended
log = logging.getLogger(__name__)


@dataclass
class AgentDesk:
    service: DecisionService
    changes: ThreadChange  # the changes' steps (the workflow)
    audit: AuditStore
    place: ThreadRef  # where agents' changes open (thread "": a new thread each; channel "":
    # the lab has no place on the platform, so no change opens)
    catalog: Catalog
    reads: ReadCommand
    calls: ChannelBudget  # tool calls per agent a minute (counted as one character each)
    templates: TemplateStore | None = None
    max_open_per_agent: int = 3
    max_wait_seconds: float = 600.0
    transport: str = "stdio"  # how agents reach this desk (stdio, http): said in the audit
    lab_name: str = ""  # the lab of LABBOT_LABS it serves ("": the settings' one lab)

    async def call(
        self, agent: Agent, tool: str, arguments: Json, work: Callable[[], Awaitable[Json]]
    ) -> Json:
        """One tool call: counted against the agent's calls a minute (over it: refused), its
        arguments bounded (agent_bounds: too large, a name too long or blank: refused), logged,
        and recorded in the audit with what it asked, for whom, and how it was answered. A call
        refused as a whole is recorded only by its trace (a constant size); an answered one
        with its arguments, which the bounds kept within LABBOT_MAX_REQUEST_CHARS."""
        log.info("mcp %s by %s for %s", tool, agent.name, agent.principal)
        counted = ThreadRef("mcp", agent.actor_id, "")  # the agent's own budget
        over = await self.calls.take(counted, 1, self.service.clock())
        limit = self.service.requests.limits.max_request_chars
        if over is not None:
            text = messages.AGENT_TOO_MANY_CALLS.format(
                agent=agent.name, count=over, limit=self.calls.limit
            )
            answer = agent_views.refused(text, tool=tool)
        elif refusal := refuse_arguments(arguments, limit):
            answer = agent_views.refused(refusal, tool=tool)
        else:
            answer = await work()
        whole = bool(answer.get("error")) and not answer.get("data")
        await self.audit.record_agent_call(
            agent_id=agent.actor_id,
            agent_name=agent.shown,
            principal=agent.principal,
            transport=self.transport,
            tool=tool,
            arguments=trace(arguments, self.service.reporter.mask) if whole else arguments,
            outcome=cut(str(answer.get("error") or messages.AGENT_ANSWERED), KEPT_REASON_CHARS),
            change_id=change_column(
                answer.get("metadata", {}).get("change_id"), arguments.get("change_id")
            ),
            lab=self.lab_name,
        )
        return answer

    async def refuse(self, agent: Agent, tool: str, arguments: Json, reason: str) -> Json:
        """A call refused before it reached a lab (bot.agents.scope): counted and recorded as
        any call, answered with `reason`."""

        async def refused() -> Json:
            return agent_views.refused(reason, tool=tool)

        return await self.call(agent, tool, arguments, refused)

    async def lab(self) -> Json:
        devices, links, unusable = await self.reads.lab.devices()
        return agent_views.lab_answer(devices, links, await probe(devices), unusable)

    async def show(self, agent: Agent, command: str, devices: list[str]) -> Json:
        """A read-only command on named devices, as `show … on DEVICES` in chat."""
        text = f"{command.strip()} on {','.join(devices)}"
        parsed = parse_command(text)
        refusals: list[str] = []
        if parsed is None or parsed.name not in READ_VERBS:
            reason = messages.REFUSED.format(
                # masked whole, then cut: a quoted key cut in two is masked in part only
                reason=messages.AGENT_NOT_A_READ.format(
                    command=cut(self.service.reporter.mask.said(command.strip()), 80)
                ),
            )
            await self._record_refusal(agent, "show", reason)
            return agent_views.refused(reason, tool="show")
        ctx = self._context(agent, text, parsed, refusals)
        done = None
        if await self.reads.admitted(ctx):
            listed, _, _ = await self.reads.lab.devices()
            done = await self.reads.read(ctx, listed)
        if done is None:
            return agent_views.refused(" ".join(refusals), tool="show")
        bounds = self.reads.limits.output
        shown = await self.reads.offload(
            masked_response, done.request, done.sent, done.response, ctx.mask, bounds
        )
        return dict(shown)

    async def template_library(self) -> Json:
        mask = self.service.reporter.mask
        items = [agent_views.template_item(self.catalog.get(n), mask) for n in self.catalog.names()]
        saved = await self.templates.latest() if self.templates is not None else []
        items += [agent_views.template_item(t, mask) for t in saved]
        return agent_views.answer(items)

    async def request_change(
        self, agent: Agent, text: str, devices: list[str], template: str | None
    ) -> Json:
        """Open the change in a new thread of the place; its id and link once it is planned."""
        asked = _request_text(text, devices, template)
        actor = Actor(agent.actor_id, agent.shown)
        place, refusal = await self._opening_place()
        refusal = refusal or refuse_size(self.service.requests.limits, asked)
        if not refusal:
            request = Request(place, actor, asked)
            refusal = await self.service.authorizer.refuse_request(request)
        if refusal:  # nothing is posted: the refusal is the agent's and the audit's
            await self._record_refusal(agent, "request_change", refusal)
            return agent_views.refused(refusal, tool="request_change")
        opening = messages.AGENT_ASKS.format(
            agent=agent.name, principal=agent.principal, text=asked
        )
        root = await self.service.reporter.adapter.post(place, Message(opening))
        thread = replace(place, thread=root)
        limits = replace(self.service.requests.limits, max_open_per_user=self.max_open_per_agent)
        desk = replace(self.service.requests, limits=limits)
        started = await desk.start_change(Request(thread, actor, asked), asked)
        if not started.change_id:
            reason = messages.AGENT_NOT_OPENED.format(reason=started.refused)
            return agent_views.refused(reason, tool="request_change", thread=thread_link(thread))
        return await self.change_status(agent, started.change_id)

    async def change_status(self, agent: Agent, change_id: str) -> Json:
        """Where a change the agent asked for stands (only its own changes of this desk's lab
        are shown: another's, or another lab's, reads as no change at all)."""
        change = await self.audit.change_summary(change_id)
        if (
            change is None
            or change.requester_id != agent.actor_id
            or (self.lab_name and change.lab != self.lab_name)
        ):
            text = messages.AGENT_NO_SUCH_CHANGE.format(change_id=cut(change_id), agent=agent.name)
            return agent_views.refused(text, tool="change_status")
        thread = thread_of(change.platform, change.channel, change.thread_key)
        link = thread_link(thread)
        gate = await self.changes.pending_gate(change.thread_key)
        if gate is not None and gate.change_id == change_id:
            authorizer = self.service.authorizer
            votes = await self.audit.votes(gate.interrupt_id)
            approvers = tuple(v.actor_id for v in votes if v.choice == "approve")
            waiting = await authorizer.waiting_for(
                gate, approvers, change.requester_id, change.channel
            )
            return agent_views.open_answer(change, gate, link, self._may_decide(change), waiting)
        if not change.events:  # its ending is recorded after its pushes: until then it runs
            return agent_views.running_answer(change, link)
        finished = await self.changes.outcome(change.thread_key)
        if finished is not None and finished.change_id != change_id:
            finished = None
        return agent_views.ended_answer(change, finished, link, self.service.reporter.mask)

    async def wait_for_change(
        self, agent: Agent, change_id: str, seconds: float, progress: Progress
    ) -> Json:
        """Wait until the change ends or `seconds` (bounded) pass, telling each new step."""
        bound = max(0.0, min(seconds, self.max_wait_seconds))
        start = time.monotonic()
        told = ""
        while True:
            status = await self.change_status(agent, change_id)
            step = str(status.get("metadata", {}).get("step") or "")
            state = str(status.get("metadata", {}).get("state") or "")
            elapsed = time.monotonic() - start
            if state not in LIVE or elapsed >= bound:
                return status
            if step != told:
                told = step
                await progress(elapsed, bound, _step_said(change_id, step))
            await asyncio.sleep(min(POLL_SECONDS, bound - elapsed))

    async def _opening_place(self) -> tuple[ThreadRef, str | None]:
        """Where the change opens — the place with its channel as the platform knows it (a
        `#name` by its id: the platform's events name the thread so) — or why it cannot."""
        place, platform = self.place, self.place.platform
        if not place.channel:
            return place, messages.AGENT_LAB_NO_PLACE.format(lab=self.lab_name, platform=platform)
        adapter = self.service.reporter.adapter
        if not isinstance(adapter, PlaceIds):
            return place, None
        channel = await adapter.place_id(place.channel)
        if channel is None:
            said = messages.AGENT_PLACE_UNKNOWN.format(place=place.channel, platform=platform)
            return place, said
        self.place = replace(place, channel=channel)  # its reads and refusals there too
        return self.place, None

    def _may_decide(self, change: ChangeRecord) -> str:
        """Who may decide its gates, as the policy names them (owners of the devices too)."""
        policy = self.service.policy
        named = policy.approvers_by_channel.get(change.channel) or policy.approvers
        requester = self.service.authorizer.requester(change.requester_id)
        if named:
            return messages.AGENT_DECIDERS.format(people=", ".join(named), requester=requester)
        return messages.AGENT_ANYONE_BUT.format(requester=requester)

    def _context(
        self, agent: Agent, text: str, command: Command, refusals: list[str]
    ) -> CommandContext:
        """A chat command's context for the agent: what would be said goes nowhere, refusals
        come back to the agent and are recorded; it can neither start nor decide anything."""

        async def refuse(reason: str) -> None:
            refusals.append(reason)
            await self._record_refusal(agent, command.name, reason)

        async def never(*_: object) -> None:
            await refuse(messages.REFUSED.format(reason=messages.AGENTS_NEVER_DECIDE))

        async def no_curation() -> bool:
            return False

        async def said(_: Message) -> None:
            return None

        service = self.service
        return CommandContext(
            request=Request(self.place, Actor(agent.actor_id, agent.shown), text),
            command=command,
            say=said,
            show=never,
            refuse=refuse,
            may_curate=no_curation,
            start_change=never,
            decide=_never_decide(refuse),
            changes=self.changes,
            audit=self.audit,
            authorizer=service.authorizer,
            clock=service.clock,
            mask=service.reporter.mask,
        )

    async def _record_refusal(self, agent: Agent, about: str, reason: str) -> None:
        await self.audit.record_refusal(
            change_id=None,
            interrupt_id=None,
            gate=about,
            actor_id=agent.actor_id,
            actor_name=agent.shown,
            platform=self.place.platform,
            channel=self.place.channel,
            reason=cut(reason, KEPT_REASON_CHARS),
        )


def _never_decide(
    refuse: Callable[[str], Awaitable[None]],
) -> Callable[[Decision], Awaitable[None]]:
    async def decide(_: Decision) -> None:
        await refuse(messages.REFUSED.format(reason=messages.AGENTS_NEVER_DECIDE))

    return decide


def _step_said(change_id: str, step: str) -> str:
    if step in messages.AGENT_RUNNING:
        return messages.AGENT_RUNNING[step].format(change_id=change_id)
    return messages.AGENT_WAITS_AT.format(change_id=change_id, step=step)


def _request_text(text: str, devices: list[str], template: str | None) -> str:
    """The request as chat would say it: `apply TEMPLATE to DEVICES …`, or the text `on DEVICES`."""
    targets = ",".join(devices)
    if template:
        return f"apply {template} to {targets or 'all'} {text}".strip()
    return f"{text} on {targets}" if targets else text
