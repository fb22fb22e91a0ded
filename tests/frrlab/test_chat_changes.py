"""Changes asked in chat, pushed to real FRR routers through their consoles: OSPF and eBGP
converge, a line FRR refuses fails only its router with FRR's own words, rollback restores
each router's running configuration exactly."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from bot.cli.demo import demo_settings
from bot.runtime.wiring import Runtime, open_runtime
from bot.settings import load_settings
from frrlab import FrrLab, generated_topology
from tests.bot.chat import THREAD, RecordingAdapter, ask, click
from workflow.devices.inventories.static import StaticInventory
from workflow.library.catalog import load_catalog
from workflow.ports import Planner

pytestmark = [
    pytest.mark.frr,
    pytest.mark.usefixtures("frr_host"),
    pytest.mark.xdist_group("frr-lab"),
]

CONVERGE_SECONDS = 30.0


@asynccontextmanager
async def bot_on(
    lab: FrrLab,
    tmp_path: Path,
    chat: RecordingAdapter,
    transport: str = "telnet",
    planner: Planner | None = None,
    **options: Any,
) -> AsyncIterator[Runtime]:
    """labbot on the lab (`options`: settings by field name; `planner`: else the library)."""
    settings = demo_settings(load_settings(data_dir=tmp_path, **options))
    inventory = StaticInventory(lab.write_inventory(tmp_path / "hosts.yaml", transport))
    async with open_runtime(settings, chat, inventory=inventory, planner=planner) as runtime:
        yield runtime


async def change(bot: Runtime, chat: RecordingAdapter, text: str, thread: object = THREAD) -> str:
    """alice asks, bob approves the template and executes; the change id."""
    await bot.service.handle(ask(text, "alice", thread))  # type: ignore[arg-type]
    assert "Step 1 of 2" in chat.last_gate()[1].text, chat.texts()
    await bot.service.handle(click(chat, "bob", thread=thread))  # type: ignore[arg-type]
    assert "Step 2 of 2" in chat.last_gate()[1].text, chat.texts()
    await bot.service.handle(click(chat, "bob", thread=thread))  # type: ignore[arg-type]
    found = await bot.audit.latest_change_for_thread(thread.key)  # type: ignore[attr-defined]
    assert found is not None
    return str(found.change_id)


def post_checks_within(monkeypatch: pytest.MonkeyPatch, name: str, seconds: float) -> None:
    """The built-in template `name` waits `seconds` for its post-checks, for a test where they
    must fail: the failure is the same, without waiting out the template's own timeout."""
    template = load_catalog().get(name)
    assert template.post_checks is not None
    checks = {**template.post_checks, "timeout": seconds}
    shorter = dataclasses.replace(template, post_checks=checks)
    monkeypatch.setitem(load_catalog()._templates, name, shorter)


def shown(lab: FrrLab, router: str, command: str) -> dict:
    return dict(json.loads(lab.vtysh(router, command)))


def full_neighbours(lab: FrrLab, router: str) -> set[str]:
    neighbours = shown(lab, router, "show ip ospf neighbor json")["neighbors"]
    return {
        router_id
        for router_id, entries in neighbours.items()
        if any(entry["nbrState"].startswith("Full") for entry in entries)
    }


def routes(lab: FrrLab, router: str, protocol: str) -> set[str]:
    return set(shown(lab, router, f"show ip route {protocol} json"))


async def eventually(check: Callable[[], bool], seconds: float = CONVERGE_SECONDS) -> bool:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.5)
    return True


def post_check_results(chat: RecordingAdapter) -> dict[str, str]:
    """Each router's block of the change's result: its title (✓/✗ R1) and text."""
    result = chat.messages()[-1]
    return {block.title: block.text for block in result.blocks}


def loopbacks(lab: FrrLab) -> dict[str, str]:
    return {spec.name: f"{spec.data['loopback']}/32" for spec in lab.topology.devices}


async def test_ospf_on_all_routers_brings_every_adjacency_full_and_every_loopback(
    tmp_path: Path,
) -> None:
    chat = RecordingAdapter()
    async with FrrLab.start() as lab, bot_on(lab, tmp_path, chat) as bot:
        await change(bot, chat, "configure ospf on all routers with hello-interval 1")
        expected = {"R1": {"10.255.0.2"}, "R2": {"10.255.0.1", "10.255.0.3"}, "R3": {"10.255.0.2"}}
        assert await eventually(
            lambda: all(full_neighbours(lab, r) == n for r, n in expected.items())
        )
        every = set(loopbacks(lab).values())
        for router, own in loopbacks(lab).items():
            assert await eventually(lambda r=router, o=own: every - {o} <= routes(lab, r, "ospf"))
        assert " ip ospf dead-interval 4\n ip ospf hello-interval 1" in lab.vtysh("R2", "show run")
        # one login for the preview's read, one for the push and the post-checks after it
        assert {router: lab.console_logins(router) for router in lab.routers} == {
            "R1": 2,
            "R2": 2,
            "R3": 2,
        }
    assert "pushed: ✓ 3 ✗ 0 of 3" in chat.texts()[-1], chat.texts()[-1]
    results = post_check_results(chat)
    assert sorted(results) == ["✓ R1", "✓ R2", "✓ R3"]
    assert "post-checks passed after" in results["✓ R2"]
    assert "✓ OSPF neighbour 10.0.12.1 (R1 eth0) Full" in results["✓ R2"]
    assert "✓ OSPF neighbour 10.0.23.2 (R3 eth0) Full" in results["✓ R2"]
    assert "✓ route 10.255.0.3/32 (R3 lo) installed" in results["✓ R1"]
    assert "✓ route 10.255.0.1/32 (R1 lo) installed" in results["✓ R3"]


async def test_ebgp_between_two_routers_establishes_and_exchanges_loopbacks(
    tmp_path: Path,
) -> None:
    chat = RecordingAdapter()
    async with FrrLab.start(generated_topology(2)) as lab, bot_on(lab, tmp_path, chat) as bot:
        await change(bot, chat, "configure bgp on all routers")
        summary = shown(lab, "R1", "show bgp ipv4 unicast summary json")
        assert await eventually(lambda: "10.255.0.2/32" in routes(lab, "R1", "bgp"))
        assert await eventually(lambda: "10.255.0.1/32" in routes(lab, "R2", "bgp"))
        summary = shown(lab, "R1", "show bgp ipv4 unicast summary json")
    assert summary["peers"]["10.0.0.2"]["state"] == "Established"
    assert summary["peers"]["10.0.0.2"]["remoteAs"] == 65002
    assert "pushed: ✓ 2 ✗ 0 of 2" in chat.texts()[-1], chat.texts()[-1]
    results = post_check_results(chat)
    assert "✓ BGP neighbour 10.0.0.2 (R2) Established" in results["✓ R1"], results
    assert "✓ prefix 10.255.0.2/32 from R2 installed by bgp" in results["✓ R1"], results
    assert "✓ prefix 10.255.0.1/32 from R1 installed by bgp" in results["✓ R2"], results


async def test_ibgp_with_one_as_establishes_between_two_routers(tmp_path: Path) -> None:
    chat = RecordingAdapter()
    async with FrrLab.start(generated_topology(2)) as lab, bot_on(lab, tmp_path, chat) as bot:
        await change(bot, chat, "configure bgp on all routers asn=65000")
        assert await eventually(lambda: "10.255.0.1/32" in routes(lab, "R2", "bgp"))
        summary = shown(lab, "R2", "show bgp ipv4 unicast summary json")
    assert summary["peers"]["10.0.0.1"]["state"] == "Established"
    assert summary["peers"]["10.0.0.1"]["remoteAs"] == summary["as"] == 65000


async def test_a_line_a_router_s_copy_refuses_stops_the_change_before_any_push(
    tmp_path: Path,
) -> None:
    """R2 already runs BGP 65099: its copy (a real FRR router started from R2's running
    configuration) refuses `router bgp 65002` with FRR's words before the params gate, so the
    change stops there and no router is touched (R1 and R3 would have lost their sessions)."""
    chat = RecordingAdapter()
    async with FrrLab.start() as lab, bot_on(lab, tmp_path, chat) as bot:
        lab.vtysh("R2", "configure terminal", "router bgp 65099")  # R2 already runs BGP
        before = {r: lab.vtysh(r, "show running-config") for r in lab.routers}
        await bot.service.handle(ask("configure bgp on all routers", "alice", THREAD))  # type: ignore[arg-type]
        assert "Step 1 of 2" in chat.last_gate()[1].text, chat.texts()
        await bot.service.handle(click(chat, "bob", thread=THREAD))  # type: ignore[arg-type]
        after = {r: lab.vtysh(r, "show running-config") for r in lab.routers}
    said = "\n".join(chat.texts())
    assert "Step 2 of 2" not in chat.last_gate()[1].text
    assert "R2: a copy of R2 refused router bgp 65002: BGP is already running" in said, said
    assert "nothing was pushed" in said
    assert after == before


async def test_rollback_returns_every_router_to_its_running_configuration(
    tmp_path: Path,
) -> None:
    chat = RecordingAdapter()
    async with FrrLab.start() as lab, bot_on(lab, tmp_path, chat) as bot:
        before = {r: lab.vtysh(r, "show running-config") for r in lab.routers}
        change_id = await change(bot, chat, "configure ospf on all routers fast=true")
        assert "pushed: ✓ 3 ✗ 0 of 3" in chat.texts()[-1], chat.texts()[-2:]
        changed = {r: lab.vtysh(r, "show running-config") for r in lab.routers}
        undo = THREAD.__class__(THREAD.platform, THREAD.channel, "t2")
        await change(bot, chat, f"rollback {change_id}", undo)
        after = {r: lab.vtysh(r, "show running-config") for r in lab.routers}
    assert all(" ip ospf network point-to-point" in text for text in changed.values())
    assert after == before, chat.texts()[-2:]
