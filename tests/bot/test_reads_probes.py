"""Bounded ping in chat on the simulated lab, each device in its platform's own syntax: one
`ping … on R1 SW1` reaches IOS as `repeat 5 timeout 2` and EOS as `repeat 5` (the devices' own
record of what they were sent); a count past the bound is refused and nothing is sent."""

from __future__ import annotations

from pathlib import Path

from labsim import Lab, demo_topology
from tests.bot.chat import RecordingAdapter, ask
from tests.bot.test_reads import blocks, bot_on_lab


async def test_one_ping_is_sent_to_each_platform_in_its_own_bounded_form(tmp_path: Path) -> None:
    chat = RecordingAdapter()
    async with bot_on_lab(tmp_path, chat, topology=demo_topology(1, switch=True)) as (lab, bot):
        await bot.service.handle(ask("ping 10.0.100.2 on R1 SW1", "alice"))
        said = chat.messages()[-1]
        shown = blocks(chat)
        await bot.service.handle(ask("ping 10.0.100.2 repeat 50 on R1 SW1", "alice"))
        seen = {name: _pings(lab, name) for name in ("R1", "SW1")}
    assert said.text == "`ping 10.0.100.2` on R1, SW1: ✓ 2 ✗ 0", said.text
    assert "success_pct      100" in shown["✓ R1 · ping 10.0.100.2 repeat 5 timeout 2"]  # TextFSM
    assert "✓ SW1 · ping 10.0.100.2 repeat 5" in shown, shown
    assert seen == {
        "R1": ["ping 10.0.100.2 repeat 5 timeout 2"],
        "SW1": ["ping 10.0.100.2 repeat 5"],
    }
    refused = chat.said_to("console:alice")
    assert refused and "`ping … repeat 50` is out of bounds: at most 5" in refused[-1], refused


def _pings(lab: Lab, name: str) -> list[str]:
    return [line for line in lab.device(name).commands_seen if line.startswith("ping")]
