"""A stand-in for the decision service in the adapter tests: it records what the adapter delivers
and answers a `gate…` request with a gate message, as the service would."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from adapters.chat import ChatEvent, CodeBlock, Request, button_value
from adapters.matrix.adapter import MatrixAdapter
from tests.adapters.matrix.chat_user import running
from tests.support.gates import gate_message

MakeBot = Callable[..., MatrixAdapter]  # the `make_bot` fixture
SHA = "a" * 64
GATE_VALUE = button_value("int-1", SHA)
GATE = gate_message(
    "*Step 1 of 2 — template* for change chg-1",
    CodeBlock("interface {{ name }}", "jinja", "Template (ios)"),
    GATE_VALUE,
    key="int-1",
)


class Recorder:
    """Records events once handled; answers requests starting with `gate` with `GATE`."""

    def __init__(self, adapter: MatrixAdapter) -> None:
        self.adapter = adapter
        self.events: list[ChatEvent] = []
        self.gate_ids: list[str] = []
        self._arrived = asyncio.Event()

    async def __call__(self, event: ChatEvent) -> None:
        if isinstance(event, Request) and event.text.startswith("gate"):
            self.gate_ids.append(await self.adapter.post(event.thread, GATE))
        self.events.append(event)  # once handled, as the service returns after posting
        self._arrived.set()

    async def next_event(self, count: int = 1) -> ChatEvent:
        """The `count`th event handled, waiting for it up to 20 s."""
        async with asyncio.timeout(20):
            while len(self.events) < count:
                self._arrived.clear()
                await self._arrived.wait()
        return self.events[count - 1]


@asynccontextmanager
async def recording(
    adapter: MatrixAdapter, recorder: Recorder | None = None
) -> AsyncIterator[Recorder]:
    """The adapter running (a bot process) with `recorder`, or a new `Recorder`, as its handler."""
    handler = recorder or Recorder(adapter)
    async with running(adapter, handler):
        yield handler
