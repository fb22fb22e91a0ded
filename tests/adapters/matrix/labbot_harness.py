"""labbot on Matrix as `labbot serve` runs it: settings, the factory, the runtime, a simulated lab.

Shared by the end-to-end tests and bench/matrix_latency.py.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from adapters.matrix.adapter import MatrixAdapter
from bot.demo import demo_lab, demo_settings
from bot.serve_matrix import make_adapter
from bot.settings import Settings, load_settings
from bot.wiring import Runtime, open_runtime
from labsim import Lab
from labsim.device import SimDevice
from tests.adapters.matrix.chat_user import ChatUser, Event, running
from tests.fakes.synapse import MatrixAccount, Synapse
from workflow.ports import Inventory

GATE_KEY = "org.labbot.gate"
REQUEST = "!labbot configure ospf on all routers"
TEMPLATE_STEP = "Step 1 of 2"
PARAMS_STEP = "Step 2 of 2"


def labbot_settings(
    synapse: Synapse, bot: MatrixAccount, data_dir: Path, **overrides: Any
) -> Settings:
    """Settings as the environment would give them; the lab's credentials and SQLite database
    come from the demo's rules (`demo_settings`)."""
    settings = load_settings(
        data_dir=data_dir,
        matrix_homeserver=synapse.url,
        matrix_user_id=bot.user_id,
        matrix_password=bot.password,
        **overrides,
    )
    return demo_settings(settings)


@asynccontextmanager
async def simulated_lab(
    settings: Settings, devices: int = 3
) -> AsyncIterator[tuple[Lab, Inventory]]:
    async with demo_lab(settings, devices) as (lab, inventory):
        yield lab, inventory


@asynccontextmanager
async def labbot(settings: Settings, inventory: Inventory) -> AsyncIterator[Runtime]:
    """One bot process: the Matrix factory, the runtime on the settings' database, the sync loop."""
    adapter: MatrixAdapter = await make_adapter(settings, http=False, host="127.0.0.1", port=0)
    async with (
        open_runtime(settings, adapter, inventory=inventory) as runtime,
        running(adapter, runtime.service.handle),
    ):
        yield runtime


def bot_message(
    room_id: str, root: str, bot_id: str, where: Callable[[Event], bool]
) -> Callable[[str, Event], bool]:
    """A message of the bot in the thread of `root` that also satisfies `where`."""

    def matches(room: str, event: Event) -> bool:
        relation = event.get("content", {}).get("m.relates_to") or {}
        return (
            room == room_id
            and event.get("sender") == bot_id
            and event.get("type") == "m.room.message"
            and relation.get("rel_type") == "m.thread"
            and relation.get("event_id") == root
            and where(event)
        )

    return matches


def is_gate(step: str) -> Callable[[Event], bool]:
    return lambda event: GATE_KEY in event["content"] and step in event["content"]["body"]


def body_has(*words: str) -> Callable[[Event], bool]:
    return lambda event: all(word in event["content"]["body"] for word in words)


async def shared_room(
    owner: ChatUser, bot_id: str, *others: ChatUser, encrypted: bool = False
) -> str:
    """A room with the bot and everyone in it (the bot joins on invite)."""
    room = await owner.create_room([bot_id, *(o.user_id for o in others)], encrypted=encrypted)
    for other in others:
        await other.join(room)
    await owner.wait_for(
        lambda r, e: (
            r == room
            and e.get("type") == "m.room.member"
            and e.get("state_key") == bot_id
            and e["content"].get("membership") == "join"
        )
    )
    return room


async def ask(asker: ChatUser, room: str, bot_id: str, within: float = 60) -> tuple[str, Event]:
    """Ask for the change in a new thread: its root id and the template gate the bot posts."""
    root = await asker.say(room, REQUEST)
    gate = await asker.wait_for(bot_message(room, root, bot_id, is_gate(TEMPLATE_STEP)), within)
    return root, gate


def routers_of(lab: Lab) -> list[SimDevice]:
    """The lab's routers: what "all routers" in `REQUEST` selects."""
    return [device for device in lab.devices if device.platform == "cisco_ios"]
