"""The decision service as a hostile team member meets it: the real graph, SQLite, the
simulated lab, and a chat whose platform facts (direct messages, user groups, power levels)
the test sets."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from adapters.chat import Decision, Message, ThreadRef, parse_button_value
from bot.cli.demo import demo_settings
from bot.runtime.wiring import Runtime, open_runtime
from bot.settings import load_settings
from labsim import Lab
from tests.bot.chat import RecordingAdapter, person
from workflow.devices.inventories.static import StaticInventory


@dataclass
class TeamChat(RecordingAdapter):
    """A console chat that also answers the policy (adapters.chat.PeopleDirectory)."""

    direct: set[str] = field(default_factory=set)
    groups: dict[str, set[str]] = field(default_factory=dict)  # "@netops" -> user ids
    power: dict[str, int] = field(default_factory=dict)  # user id -> level

    async def is_direct(self, channel: str) -> bool:
        return channel in self.direct

    async def members(self, group: str) -> frozenset[str]:
        return frozenset(self.groups.get(group, ()))

    async def power_level(self, channel: str, user_id: str) -> int:
        return self.power.get(user_id, 0)

    def gate_in(self, thread: ThreadRef) -> tuple[str, Message] | None:
        gates = [(mid, m) for mid, t, m in self.posts if m.buttons and t == thread]
        return gates[-1] if gates else None

    def refusals_to(self, who: str) -> list[str]:
        return [t for t in self.said_to(f"console:{who}") if t.startswith("Refused")]


def press(chat: TeamChat, thread: ThreadRef, who: str, choice: str = "approve") -> Decision:
    """`who` presses a button of the latest gate in `thread`."""
    found = chat.gate_in(thread)
    assert found is not None, f"no gate in {thread}: {chat.texts()[-3:]}"
    message_id, gate = found
    button = next(b for b in gate.buttons if b.choice == choice)
    interrupt_id, sha256 = parse_button_value(button.value)
    return Decision(thread, person(who), interrupt_id, button.choice, sha256, message_id=message_id)


def place(channel: str, thread: str = "t1") -> ThreadRef:
    return ThreadRef("console", channel, thread)


@asynccontextmanager
async def team_bot(
    tmp_path: Path, lab: Lab, chat: TeamChat, **settings: Any
) -> AsyncIterator[Runtime]:
    """labbot on the lab with these settings (LABBOT_* by field name)."""
    tmp_path.mkdir(parents=True, exist_ok=True)  # noqa: ASYNC240 (a test's own folder)
    loaded = demo_settings(load_settings(data_dir=tmp_path, **settings))
    inventory = StaticInventory(lab.write_inventory(tmp_path / "hosts.yaml"))
    async with open_runtime(loaded, chat, inventory=inventory) as runtime:
        yield runtime


def configs(lab: Lab) -> dict[str, str]:
    return {device.name: device.running_config() for device in lab.devices}
