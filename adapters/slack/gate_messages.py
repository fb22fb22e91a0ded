"""Gate messages as Slack shows them, so closing one swaps its buttons for the footer without
rendering the gate again.

What a gate showed is known from its own post (the blocks this process rendered) or from a click
on it: Slack sends the message's blocks with every click (`block_actions`), so the replica that
handles a click knows them even when another one posted the gate.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from adapters.slack.blocks import GATE_BLOCK_ID, Block, footer_block

GATES_KEPT = 10_000  # gate messages remembered, the oldest forgotten first


@dataclass(frozen=True)
class Shown:
    """A message as Slack shows it: its fallback text and its blocks."""

    text: str
    blocks: list[Block]


def is_gate(blocks: Sequence[Block]) -> bool:
    return any(block.get("block_id") == GATE_BLOCK_ID for block in blocks)


def closed(shown: Shown, footer: str, mentions: tuple[str, ...] = ()) -> Shown:
    """`shown` with its buttons swapped for `footer`; every other block as it was."""
    kept = [block for block in shown.blocks if block.get("block_id") != GATE_BLOCK_ID]
    return Shown(shown.text, [*kept, footer_block(footer, mentions)])


class GateMessages:
    """Message ts -> the gate message as shown, until it is closed."""

    def __init__(self, kept: int = GATES_KEPT) -> None:
        self._kept = kept
        self._shown: OrderedDict[str, Shown] = OrderedDict()

    def posted(self, ts: str, text: str, blocks: list[Block]) -> None:
        """This process posted `blocks` as `ts`: remembered when they hold a gate's buttons."""
        if is_gate(blocks):
            self._remember(ts, Shown(text, blocks))

    def clicked(self, body: Mapping[str, Any]) -> None:
        """A click's payload carries the clicked message: remembered unless known already."""
        message = body.get("message")
        if not isinstance(message, Mapping):
            return
        container = body.get("container")
        ts = (container.get("message_ts") if isinstance(container, Mapping) else None) or str(
            message.get("ts", "")
        )
        blocks = message.get("blocks")
        if ts and ts not in self._shown and isinstance(blocks, list) and is_gate(blocks):
            self._remember(ts, Shown(str(message.get("text", "")), blocks))

    def close(self, ts: str) -> Shown | None:
        """The gate message `ts` as shown, forgotten (None: neither posted nor clicked here)."""
        return self._shown.pop(ts, None)

    def _remember(self, ts: str, shown: Shown) -> None:
        self._shown[ts] = shown
        while len(self._shown) > self._kept:
            self._shown.popitem(last=False)
