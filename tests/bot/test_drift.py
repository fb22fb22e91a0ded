"""What was approved is what the device gets: a device changed since its preview is not pushed.

Through the decision service with the real graph, saver and simulated lab (netmiko over telnet):
two changes preview R1, the first is pushed, and Execute on the second leaves R1 alone, shows
what changed and offers a fresh preview, while R2 is pushed; a line the device rewrites by itself
(`ntp clock-period`) is not drift.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from netmiko import ConnectHandler

from adapters.chat import ThreadRef
from bot.cli.demo import DEMO_CREDENTIALS
from labsim import Lab, demo_topology
from tests.bot.chat import THREAD, RecordingAdapter, ask, click
from tests.bot.test_e2e_console import running_bot

OTHER = ThreadRef("console", "lab-channel", "t2")


@pytest.fixture
async def lab() -> AsyncIterator[Lab]:
    async with Lab.start(demo_topology(2), **DEMO_CREDENTIALS) as lab:
        yield lab


def configure(sim: Lab, name: str, lines: list[str]) -> None:
    """Someone at the device's console, outside labbot."""
    device = sim.device(name)
    connection = ConnectHandler(
        device_type="cisco_ios_telnet", host=sim.host, port=device.telnet_port, **DEMO_CREDENTIALS
    )
    connection.enable()
    connection.send_config_set(lines)
    connection.disconnect()


async def test_execute_after_another_change_leaves_the_drifted_device_alone(
    tmp_path: Path,
    lab: Lab,
) -> None:
    chat = RecordingAdapter()
    async with running_bot(tmp_path, lab, chat) as bot:
        await bot.service.handle(ask("apply ntp to R1 servers=10.1.1.1", "alice"))
        await bot.service.handle(click(chat, "bob"))
        first = click(chat, "bob")  # Execute on the first change's preview
        await bot.service.handle(ask("apply ntp to R1,R2 servers=10.2.2.2", "carol", OTHER))
        await bot.service.handle(click(chat, "bob", thread=OTHER))
        second = click(chat, "bob", thread=OTHER)
        await bot.service.handle(first)
        assert "ntp server 10.1.1.1" in lab.device("R1").running_config()
        await bot.service.handle(second)
        _, fresh = chat.last_gate()
        r1, r2 = lab.device("R1").running_config(), lab.device("R2").running_config()
        assert "ntp server 10.2.2.2" in r2 and "ntp server 10.2.2.2" not in r1
        assert (
            "Step 2 of 2" in fresh.text and "left R1 alone (the other devices: ✓ R2)" in fresh.text
        )
        shown = {block.title: block.text for block in fresh.blocks}
        assert "+ntp server 10.1.1.1" in shown["R1 changed since the preview"]
        assert "R2 configuration" not in shown  # only R1 is previewed again
        await bot.service.handle(click(chat, "bob", thread=OTHER))
        change = await bot.audit.latest_change_for_thread(OTHER.key)
        assert change is not None
        await bot.service.handle(ask(f"audit change={change.change_id}", "carol"))
    assert "ntp server 10.2.2.2" in lab.device("R1").running_config()
    audit = chat.messages()[-1].blocks[0].text
    assert "push R2: ✓ success" in audit and "push R1: ✓ success" in audit, audit
    assert "push R1: ✗ failed" in audit, audit  # left alone by the first push, recorded too
    said = [m.text + "".join(b.text for b in m.blocks) for _, m in chat.updates] + chat.texts()
    assert any("✓ R2" in t and "✗ R1 R1 changed since the preview; not pushed" in t for t in said)


async def test_a_line_the_device_rewrites_itself_is_not_drift(
    tmp_path: Path,
    lab: Lab,
) -> None:
    chat = RecordingAdapter()
    async with running_bot(tmp_path, lab, chat) as bot:
        await bot.service.handle(ask("apply ntp to R1 servers=10.3.3.3", "alice"))
        await bot.service.handle(click(chat, "bob"))
        await asyncio.to_thread(configure, lab, "R1", ["ntp clock-period 17208"])
        await bot.service.handle(click(chat, "bob"))
    config = lab.device("R1").running_config()
    assert "ntp clock-period 17208" in config and "ntp server 10.3.3.3" in config
    assert not any("changed since the preview" in t for t in chat.texts())


async def test_with_locks_from_the_preview_a_second_change_is_told_who_holds_the_device(
    tmp_path: Path, lab: Lab
) -> None:
    chat = RecordingAdapter()
    async with running_bot(tmp_path, lab, chat, lock_from_preview=True) as bot:
        await bot.service.handle(ask("apply ntp to R1 servers=10.5.5.5", "alice"))
        await bot.service.handle(click(chat, "bob"))
        holder = (await bot.workflow.pending_gate(THREAD.key)).change_id  # type: ignore[union-attr]
        cancel_first = click(chat, "alice", "cancel")
        await bot.service.handle(ask("apply ntp to R1,R2 servers=10.6.6.6", "carol", OTHER))
        await bot.service.handle(click(chat, "bob", thread=OTHER))
        refused = chat.texts()[-1]
        assert f"R1 is held by change {holder}" in refused, refused
        assert await bot.workflow.pending_gate(OTHER.key) is None  # no preview for the second
        await bot.service.handle(cancel_first)  # the first change ends ...
        await bot.service.handle(ask("apply ntp to R1,R2 servers=10.6.6.6", "carol", OTHER))
        await bot.service.handle(click(chat, "bob", thread=OTHER))
        preview = chat.last_gate()[1].text  # ... and its lock with it
    assert "Step 2 of 2" in preview and "2 device(s)" in preview, preview
