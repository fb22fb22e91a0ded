"""labbot on Matrix as `labbot serve` runs it: settings, the factory, the runtime, a simulated lab.

Shared by the end-to-end tests and bench/matrix_latency.py.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from adapters.matrix.adapter import MatrixAdapter
from bot.cli.demo import demo_lab, demo_settings
from bot.runtime.serve_matrix import make_adapter
from bot.runtime.wiring import Runtime, open_runtime
from bot.settings import Settings, load_settings
from labsim import Lab
from labsim.device import SimDevice
from tests.adapters.matrix.chat_user import ChatUser, Event, running
from tests.adapters.matrix.room_events import Predicate, body_has, is_gate, thread_message
from tests.fakes.synapse import MatrixAccount, Synapse
from workflow.ports import Inventory

REQUEST = "!labbot configure ospf on all routers"
TEMPLATE_STEP = "Step 1 of 2"
PARAMS_STEP = "Step 2 of 2"
ServeLabbot = Callable[..., AbstractAsyncContextManager[Runtime]]  # the `serve_labbot` fixture


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


@dataclass(frozen=True)
class BotThread:
    """A request's thread, as one person in the room watches it for the bot's answers."""

    watcher: ChatUser
    room: str
    root: str
    bot_id: str

    async def gate(self, step: str, within: float = 60) -> Event:
        """The bot's gate message of `step` (`TEMPLATE_STEP`, `PARAMS_STEP`) in this thread."""
        return await self.watcher.wait_for(self._from_bot(is_gate(step)), within)

    async def says(self, *words: str, within: float = 60) -> Event:
        """The bot's message in this thread with every one of `words`."""
        return await self.watcher.wait_for(self._from_bot(body_has(*words)), within)

    def _from_bot(self, where: Callable[[Event], bool]) -> Predicate:
        return thread_message(self.room, self.root, self.bot_id, where)

    def gates(self, step: str) -> int:
        """How many gate messages of `step` the watcher has seen in this thread."""
        return sum(
            1 for event in self.watcher.in_thread(self.room, self.root) if is_gate(step)(event)
        )


async def ask(
    asker: ChatUser, room: str, bot_id: str, within: float = 60
) -> tuple[BotThread, Event]:
    """Ask for the change in a new thread: the thread and the template gate the bot posts."""
    thread = BotThread(asker, room, await asker.say(room, REQUEST), bot_id)
    return thread, await thread.gate(TEMPLATE_STEP, within)


def routers_of(lab: Lab) -> list[SimDevice]:
    """The lab's routers: what "all routers" in `REQUEST` selects."""
    return [device for device in lab.devices if device.platform == "cisco_ios"]


def decisions(entries: Iterable[Any]) -> dict[str, str]:
    """gate -> who decided it, from the audit records."""
    return {e.gate: e.actor_id for e in entries if e.kind == "decision"}
