"""Modify without an LLM (the library planner): words it cannot use keep the gate open and are
answered with the gate's own parameters and an example; the change never ends over them."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from bot.cli.demo import DEMO_CREDENTIALS
from bot.runtime.wiring import Runtime
from labsim import Lab, demo_topology
from tests.bot.chat import THREAD, RecordingAdapter, ask, click
from tests.bot.test_e2e_console import running_bot

OSPF_PARAMS = "process_id, area, router_id, networks, interfaces, hello_interval, fast"


@pytest.fixture
async def lab() -> AsyncIterator[Lab]:
    async with Lab.start(demo_topology(2), **DEMO_CREDENTIALS) as lab:
        yield lab


async def modify(bot: Runtime, chat: RecordingAdapter, feedback: str) -> str:
    """bob modifies the open gate; what the thread was told after it."""
    before = len(chat.messages())
    await bot.service.handle(click(chat, "bob", "modify", feedback=feedback))
    return "\n".join(m.text for m in chat.messages()[before:])


@asynccontextmanager
async def ospf_at(
    gate: str, tmp_path: Path, lab: Lab
) -> AsyncIterator[tuple[Runtime, RecordingAdapter, str]]:
    """alice asks for OSPF on R1,R2 (bob approves the template for the params gate); the bot,
    its chat and the open gate's interrupt id."""
    chat = RecordingAdapter()
    async with running_bot(tmp_path, lab, chat) as bot:
        await bot.service.handle(ask("apply ospf to R1,R2", "alice"))
        if gate == "params":
            await bot.service.handle(click(chat, "bob"))
        yield bot, chat, await open_gate(bot)


async def open_gate(bot: Runtime) -> str:
    gate = await bot.workflow.pending_gate(THREAD.key)
    assert gate is not None
    return gate.interrupt_id


async def test_unreadable_words_at_the_params_gate_keep_it_open_and_name_its_parameters(
    tmp_path: Path, lab: Lab
) -> None:
    async with ospf_at("params", tmp_path, lab) as (bot, chat, gate):
        vague = await modify(bot, chat, "make it converge faster please")
        wrong = await modify(bot, chat, "use process id twenty please")
        assert await open_gate(bot) == gate  # the same gate, its buttons still good
        meant = await modify(bot, chat, "use process id 20 please")
        preview = chat.last_gate()[1]
        outcome = await bot.workflow.outcome(THREAD.key)
    assert "cannot use “make it converge faster please” at the params gate" in vague
    assert f"parameters of ospf as key=value ({OSPF_PARAMS}), e.g. `process_id=1 area=0" in vague
    assert "gate stays open" in wrong and "expected a whole number, got 'twenty'" in wrong
    assert "cannot use" not in meant and outcome is None
    assert "Step 2 of 2" in preview.text
    assert any("router ospf 20" in block.text for block in preview.blocks)


async def test_words_at_the_template_gate_are_not_ignored_silently(
    tmp_path: Path, lab: Lab
) -> None:
    async with ospf_at("template", tmp_path, lab) as (bot, chat, gate):
        vague = await modify(bot, chat, "please make it nicer")
        params = await modify(bot, chat, "area=1")
        unknown = await modify(bot, chat, "on R9")
        assert await open_gate(bot) == gate
        narrowed = await modify(bot, chat, "on R1 only")
        template_gate = chat.last_gate()[1]
    assert "cannot use “please make it nicer” at the template gate" in vague
    assert "another template (e.g. `apply bgp`) or other devices (e.g. `on R1,R2`)" in vague
    assert f"The parameters of ospf ({OSPF_PARAMS}) are set at the next gate" in params
    assert "there is no device 'R9' (lab devices: R1, R2, SW1)" in unknown
    assert "cannot use" not in narrowed and "Step 1 of 2" in template_gate.text
