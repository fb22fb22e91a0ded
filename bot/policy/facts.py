"""The facts the approval policy decides on, asked of the chat platform: who a person is
(user groups, power level) and what a place is (direct message or channel/room)."""

from __future__ import annotations

from dataclasses import dataclass

from adapters.chat import PeopleDirectory
from bot.policy.rules import Person, Place, Policy
from workflow.api import PendingGate, TemplateGate

__all__ = ["NoDirectory", "People", "directory_of"]


class NoDirectory:
    """A platform without groups, power levels or direct messages (the console)."""

    async def is_direct(self, channel: str) -> bool:
        return False

    async def members(self, group: str) -> frozenset[str]:
        return frozenset()

    async def power_level(self, channel: str, user_id: str) -> int:
        return 0


def directory_of(adapter: object) -> PeopleDirectory:
    """The adapter itself when it can answer, else a directory that knows nothing."""
    return adapter if isinstance(adapter, PeopleDirectory) else NoDirectory()


@dataclass(frozen=True)
class People:
    """Builds `Person` and `Place` facts, asking the platform only what a rule names."""

    policy: Policy
    directory: PeopleDirectory

    async def person(self, user_id: str, channel: str) -> Person:
        groups = [
            group
            for group in sorted(self.policy.groups_named())
            if user_id in await self.directory.members(group)
        ]
        power = 0
        if self.policy.reads_power:
            power = await self.directory.power_level(channel, user_id)
        return Person(user_id, frozenset(groups), power)

    async def place(self, channel: str) -> Place:
        return Place(channel, direct=await self.directory.is_direct(channel))


def gate_targets(gate: PendingGate) -> tuple[str, ...]:
    """The devices a gate would change: the template's targets, else (params, post-check
    rollback) the devices it shows lines for."""
    if isinstance(gate, TemplateGate):
        return tuple(gate.payload["targets"])
    return tuple(gate.payload["devices"])
