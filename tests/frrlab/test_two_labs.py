"""Two real FRR labs at once behind one bot, the same router names in each (R1, R2), each
answering in its own channel: BGP asked in both at the same time converges in each lab, every
router is pushed once and only by its own lab's change, and the audit names the lab of each
push."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from adapters.chat import Decision, Request, ThreadRef, parse_button_value
from bot.cli.demo import demo_settings
from bot.runtime.lab_router import open_lab_router
from bot.settings import load_settings
from frrlab import FrrLab, generated_topology
from tests.bot.chat import RecordingAdapter, person

pytestmark = [
    pytest.mark.frr,
    pytest.mark.usefixtures("frr_host"),
    pytest.mark.xdist_group("frr-lab"),
]
LABS = """\
labs:
  east: {inventory: east/hosts.yaml, slack: C0EAST}
  west: {inventory: west/hosts.yaml, slack: C0WEST}
"""


def gate_in(chat: RecordingAdapter, thread: ThreadRef) -> tuple[str, object]:
    gates = [(mid, m) for mid, t, m in chat.posts if t == thread and m.buttons]
    assert gates, [m.text for _, t, m in chat.posts if t == thread]
    return gates[-1]


def approve(chat: RecordingAdapter, thread: ThreadRef) -> Decision:
    message_id, gate = gate_in(chat, thread)
    button = next(b for b in gate.buttons if b.choice == "approve")  # type: ignore[attr-defined]
    interrupt_id, sha256 = parse_button_value(button.value)
    return Decision(thread, person("bob"), interrupt_id, "approve", sha256, message_id=message_id)


def established(lab: FrrLab) -> bool:
    summary = json.loads(lab.vtysh("R1", "show bgp ipv4 unicast summary json"))
    return summary.get("peers", {}).get("10.0.0.2", {}).get("state") == "Established"


async def test_two_frr_labs_with_the_same_router_names_change_apart(tmp_path: Path) -> None:
    (tmp_path / "labs.yaml").write_text(LABS)
    chat = RecordingAdapter(platform="slack")
    async with (
        FrrLab.start(generated_topology(2)) as east,
        FrrLab.start(generated_topology(2)) as west,
    ):
        for name, lab in (("east", east), ("west", west)):
            (tmp_path / name).mkdir()
            lab.write_inventory(tmp_path / name / "hosts.yaml", "telnet")
        settings = demo_settings(load_settings(data_dir=tmp_path, labs=tmp_path / "labs.yaml"))
        async with open_lab_router(settings, chat) as bot:
            threads = {
                "east": ThreadRef("slack", "C0EAST", "t1"),
                "west": ThreadRef("slack", "C0WEST", "t1"),
            }

            async def bgp(thread: ThreadRef) -> None:
                await bot.handle(Request(thread, person("alice"), "configure bgp on all routers"))
                await bot.handle(approve(chat, thread))  # the template
                await bot.handle(approve(chat, thread))  # the push

            await asyncio.gather(*(bgp(t) for t in threads.values()))
            for lab in (east, west):
                for _ in range(60):
                    if established(lab):
                        break
                    await asyncio.sleep(0.5)
                assert established(lab)
                assert {r: lab.console_logins(r) for r in lab.routers} == {"R1": 2, "R2": 2}
            audit = await bot.runtimes["east"].audit.entries()
    pushes = sorted((e.lab, e.device, e.status) for e in audit if e.kind == "push")
    assert pushes == [
        ("east", "R1", "success"),
        ("east", "R2", "success"),
        ("west", "R1", "success"),
        ("west", "R2", "success"),
    ]
    results = [m.text for _, t, m in chat.posts if "pushed:" in m.text]
    assert len(results) == 2 and all("✓ 2 ✗ 0 of 2" in text for text in results), results
