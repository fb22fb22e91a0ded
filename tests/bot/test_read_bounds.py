"""Read output is bounded, on the simulated lab over telnet: a long output is its first lines plus
a file with all of it, an output over the hard cap is only said, and a channel's reads post at
most its budget a minute however many people read at once."""

from __future__ import annotations

import asyncio
import ipaddress
from pathlib import Path

from adapters.chat import Message, ThreadRef
from bot.views.read import posted_chars
from labsim import Topology
from labsim.topology import DeviceSpec, InterfaceSpec
from tests.bot.chat import RecordingAdapter, ask
from tests.bot.test_reads import bot_on_lab

LOOPBACKS = 3000  # ~100 characters of running config each


def big_router() -> Topology:
    interfaces = tuple(
        InterfaceSpec(
            f"Loopback{n}",
            ipaddress.IPv4Interface(f"10.{n // 250}.{n % 250}.1/32"),
            f"customer circuit {n:05d} towards the aggregation ring",
        )
        for n in range(LOOPBACKS)
    )
    return Topology((DeviceSpec("R1", "cisco_ios", interfaces),))


def place(channel: str, thread: str = "t1") -> ThreadRef:
    return ThreadRef("console", channel, thread)


def answer(chat: RecordingAdapter) -> Message:
    return chat.messages()[-1]


async def test_a_long_output_is_its_head_and_a_file_with_all_of_it(tmp_path: Path) -> None:
    chat = RecordingAdapter()
    async with bot_on_lab(tmp_path, chat, big_router()) as (lab, bot):
        await bot.service.handle(ask("show running-config on R1", "alice"))
        whole = lab.device("R1").running_config()
    said = answer(chat)
    (block,) = said.blocks
    (file,) = said.files
    assert file.name == "R1-show-running-config.txt" and file.mime == "text/plain"
    assert whole.strip() in file.data.decode()  # all of it, as the device said it
    assert len(block.text) < 5_000 and "the whole output is in the file" in block.text
    assert block.text.startswith(file.data.decode()[:1000])
    assert posted_chars(said) < len(file.data) + 5_000  # posted once, not also inline


async def test_an_output_over_the_hard_cap_is_only_said(tmp_path: Path) -> None:
    chat = RecordingAdapter()
    async with bot_on_lab(tmp_path, chat, big_router(), read_max_chars=100_000) as (_, bot):
        await bot.service.handle(ask("show running-config on R1", "alice"))
    said = answer(chat)
    (block,) = said.blocks
    assert not said.files
    assert "LABBOT_READ_MAX_CHARS" in block.text and "Loopback" not in block.text
    assert block.title.startswith("✗ R1")


async def test_a_channel_posts_at_most_its_read_budget_however_many_read_at_once(
    tmp_path: Path,
) -> None:
    measure = RecordingAdapter()
    (tmp_path / "measure").mkdir()
    async with bot_on_lab(tmp_path / "measure", measure) as (_, bot):
        await bot.service.handle(ask("show running-config on R1 R2", "alice", place("C0")))
    one = posted_chars(answer(measure))
    budget = 3 * one + one // 2  # room for three answers, not four
    chat = RecordingAdapter()
    async with bot_on_lab(tmp_path, chat, read_channel_budget=budget) as (_, bot):
        readers = [f"user{n}" for n in range(8)]
        await asyncio.gather(
            *(
                bot.service.handle(ask("show running-config on R1 R2", who, place("C1", who)))
                for who in readers
            )
        )
        elsewhere = len(chat.messages())
        await bot.service.handle(ask("show running-config on R1 R2", "zoe", place("C2")))
    posted = [m for m in chat.messages() if m.blocks and not m.ephemeral_to]
    in_c1 = [m for _, t, m in chat.posts if t.channel == "C1" and m in posted]
    refused = [t for who in readers for t in chat.said_to(f"console:{who}")]
    assert len(in_c1) == 3 and sum(map(posted_chars, in_c1)) <= budget
    assert len(refused) == 5 and all("LABBOT_READ_CHANNEL_BUDGET" in t for t in refused)
    assert len(chat.messages()) == elsewhere + 1  # another channel has its own budget


def test_an_agent_s_read_is_masked_by_whole_lines_however_long() -> None:
    """What the MCP `show` tool answers (bot.views.read.masked_response): a Junos line longer than
    any bound the chat or the model use is masked whole, its quoted key with a space included."""
    from bot.views.read import masked_response
    from tests.support.masks import MASK
    from workflow.reads.request import ReadRequest
    from workflow.results.responses import build_response

    line = "#" * 9000 + ' authentication-key "Quoted Key-4711-Zulu";'
    request = ReadRequest(
        "show configuration", {"R1": "show configuration"}, {"R1": "juniper_junos"}
    )
    response = build_response(
        [{"id": "R1", "name": "R1", "status": "success", "result": f"{line}\n}}"}]
    )
    answered = masked_response(request, request.commands, response, MASK)
    result = answered["data"][0]["result"]
    assert "Key-4711" not in result and "Zulu" not in result
    assert result.endswith(f'authentication-key "{MASK.token("Quoted Key-4711-Zulu")}";\n}}')
