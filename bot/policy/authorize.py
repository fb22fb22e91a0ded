"""Authorize before anything is recorded: the policy (pure, bot.policy.rules) applied with the facts
the platform and the audit give — who the person is, where they are, what the gate targets,
who approved it so far. (How many changes are open is counted where a change is recorded:
bot.decisions.requests reserves it within the caps of bot.policy.request_limits.)

An AI agent (bot.policy.agent_principals) asks with its principal's rights and is the principal
as far as four-eyes goes; it never decides, whatever door its decision came through."""

from __future__ import annotations

from dataclasses import dataclass

from adapters.chat import Decision, Request, ThreadRef
from bot import messages
from bot.policy.agent_principals import NO_AGENTS, Agents, is_agent_id
from bot.policy.facts import People, gate_targets
from bot.policy.request_limits import RequestLimits, refuse_size
from bot.policy.rules import (
    Person,
    Place,
    Policy,
    Shortfall,
    refuse_curation,
    refuse_decision,
    refuse_request,
    shortfall,
)
from storage.audit_records import ChangeRecord, ChangeSummary
from storage.ports import DecisionRecords, Settles
from workflow.api import PendingGate

__all__ = ["Authorizer"]


@dataclass(frozen=True)
class Authorizer:
    policy: Policy
    people: People
    audit: DecisionRecords
    limits: RequestLimits
    agents: Agents = (
        NO_AGENTS  # the configured agents and their principals (bot.policy.agent_principals)
    )
    lab: str = ""  # the lab this bot serves (its inventory's name for it; "": not known)

    async def refuse_request(self, request: Request) -> str | None:
        """Why this person may not open a change — or read the lab — here (not a requester;
        nobody could approve here; a direct message needs a rule), or None. The refusal is the
        sentence shown to the person."""
        channel = request.thread.channel
        person = await self.people.person(self.agents.acting_for(request.actor.id), channel)
        reason = refuse_request(self.policy, person, await self.people.place(channel))
        return messages.REFUSED.format(reason=reason) if reason else None

    async def refuse_curation(self, request: Request) -> str | None:
        """Why this person may not save or pin templates here (approvers only; never an AI
        agent: what it saves would decide later changes), or None."""
        if is_agent_id(request.actor.id):
            return messages.REFUSED.format(reason=messages.AGENTS_NEVER_DECIDE)
        channel = request.thread.channel
        reason = refuse_curation(
            self.policy,
            person=await self.people.person(request.actor.id, channel),
            place=await self.people.place(channel),
        )
        return messages.REFUSED.format(reason=reason) if reason else None

    async def refuse_decision(
        self, decision: Decision, gate: PendingGate, change: ChangeSummary | None
    ) -> str | None:
        """Why this decision is refused (the platform cannot vouch for who sent it, feedback
        too long, or the policy says no), or None."""
        if decision.untrusted_because:
            return messages.REFUSED.format(reason=decision.untrusted_because)
        if is_agent_id(decision.actor.id):
            return messages.REFUSED.format(reason=messages.AGENTS_NEVER_DECIDE)
        other_lab = self.refuse_other_lab(change)
        if other_lab:
            return other_lab
        if decision.feedback:
            too_long = refuse_size(self.limits, decision.feedback)
            if too_long:
                return too_long
        reason = refuse_decision(
            self.policy,
            person=await self.people.person(decision.actor.id, decision.thread.channel),
            places=await self._places(decision.thread, change),
            requester_id=self.requester(change.requester_id if change else ""),
            choice=decision.choice,
            targets=gate_targets(gate),
        )
        return messages.REFUSED.format(reason=reason) if reason else None

    def sees(self, change: ChangeRecord) -> bool:
        """Whether `change` is this lab's to show, list or act on: with many labs (LABBOT_LABS)
        only a change made on this lab (one of another lab, or from before labs were kept, is
        as unknown here); with the settings' one lab every change."""
        return not self.policy.lab or change.lab == self.policy.lab

    def refuse_other_lab(self, change: ChangeRecord | None) -> str | None:
        """Why a change made on another lab is not decided or rolled back here (its devices are
        not this lab's, whatever their names), or None. With many labs a change this lab does
        not `sees` is refused; with one lab a change or a lab not known passes."""
        if change is not None and not self.sees(change):
            return messages.REFUSED.format(
                reason=messages.UNKNOWN_CHANGE.format(change_id=change.change_id)
            )
        if change is None or not change.lab or not self.lab or change.lab == self.lab:
            return None
        reason = messages.OTHER_LAB.format(
            change_id=change.change_id, made_on=change.lab, here=self.lab
        )
        return messages.REFUSED.format(reason=reason)

    def requester(self, requester_id: str) -> str:
        """Who counts as the requester of a change: an agent's principal, else the requester."""
        return self.agents.acting_for(requester_id)

    async def _places(self, thread: ThreadRef, change: ChangeSummary | None) -> list[Place]:
        """Where the decision is made; for a rollback also where the undone change was made
        (its rules apply too: a sandbox channel's approvers cannot undo a stricter one's)."""
        places = [await self.people.place(thread.channel)]
        undone = change.rollback_of if change else None
        original = await self.audit.change_summary(undone) if undone else None
        if original is not None:
            same_platform = original.platform == thread.platform
            where = original.channel
            places.append(await self.people.place(where) if same_platform else Place(where))
        return places

    async def settles(self, decision: Decision, gate: PendingGate, requester_id: str) -> Settles:
        """The policy's test of the approvals so far, with what the platform says about each
        approver (asked before the insert; the caller's thread lock keeps the votes as they are;
        an approver not asked about counts with no group and no power)."""
        voters = {v.actor_id for v in await self.audit.votes(gate.interrupt_id)}
        people = await self._persons({*voters, decision.actor.id}, decision.thread.channel)

        def settled(approvers: tuple[str, ...]) -> bool:
            return self._shortfall(gate, approvers, people, requester_id).settled

        return settled

    async def waiting_for(
        self, gate: PendingGate, approvers: tuple[str, ...], requester_id: str, channel: str
    ) -> str:
        """What an unsettled gate still needs, in words."""
        people = await self._persons(set(approvers), channel)
        short = self._shortfall(gate, approvers, people, requester_id)
        missing = []
        if short.people > 0:
            missing.append(messages.VOTE_WAITING_PEOPLE.format(count=short.people))
        if short.devices:
            missing.append(messages.VOTE_WAITING_OWNERS.format(devices=", ".join(short.devices)))
        return " and ".join(missing)

    async def _persons(self, ids: set[str], channel: str) -> dict[str, Person]:
        return {i: await self.people.person(i, channel) for i in sorted(ids)}

    def _shortfall(
        self,
        gate: PendingGate,
        approvers: tuple[str, ...],
        people: dict[str, Person],
        requester: str,
    ) -> Shortfall:
        return shortfall(
            self.policy,
            gate=gate.gate,
            approvers=[people.get(i, Person(i)) for i in approvers],
            requester_id=self.requester(requester),
            targets=gate_targets(gate),
        )
