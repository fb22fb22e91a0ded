"""The lab's twin is bounded — its time (LABBOT_LAB_TWIN_SECONDS), twins at once
(LABBOT_LAB_TWINS) — and gone after every end: passed, failed at its deadline, cancelled, timed
out. Gone means no namespace, no FRR daemon and no folder of a twin left on this host. Real FRR
twins of the default 3-router lab, driven through `LabRehearsal` as the params node does."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager

import pytest

from frrlab import netns
from frrlab.lab_twin import TWIN_PREFIX, FrrLabTwins
from frrlab.topology import DEFAULT_TOPOLOGY_FILE, load_frr_topology
from tests.frrlab.test_lab_twin import twin_leftovers
from workflow.model import DeviceFacts, InterfaceFacts, Link, Topology
from workflow.phases import lab_twin_run
from workflow.phases.lab_twin_run import LabRehearsal, TwinSession
from workflow.postchecks.evaluate import Expectation

pytestmark = [
    pytest.mark.frr,
    pytest.mark.usefixtures("frr_host"),
    pytest.mark.xdist_group("frr-lab"),
]

OSPF = ["router ospf", " network 0.0.0.0/0 area 0"]
R2_FULL = Expectation("ospf_neighbors", "ospf", "10.0.12.2", "R2", "eth0")
NEVER = Expectation("ospf_neighbors", "ospf", "10.9.9.9", "R9", "eth9")  # no such neighbour


def three_routers() -> tuple[dict[str, DeviceFacts], Topology]:
    """frrlab's default lab as labbot reads it: each router's interfaces and running config."""
    spec = load_frr_topology(DEFAULT_TOPOLOGY_FILE)
    devices = {
        router.name: DeviceFacts(
            name=router.name,
            platform="frr_telnet",
            family="frr",
            interfaces=[
                InterfaceFacts(
                    name=i.name,
                    address=i.address.with_prefixlen if i.address else None,
                    enabled=True,
                )
                for i in router.interfaces
            ],
            running_config=f"hostname {router.name}\n",
        )
        for router in spec.devices
    }
    links = [
        Link(a_device=a[0], a_interface=a[1], b_device=b[0], b_interface=b[1])
        for a, b in ((link.a, link.b) for link in spec.links)
    ]
    return devices, Topology(devices=devices, links=links, unusable=[], selection={}, kinds={})


async def rehearse(
    rehearsal: LabRehearsal, expected: Expectation, seconds: float
) -> lab_twin_run.LabTwinAnswer:
    devices, topology = three_routers()
    plan = {name: [*fast_hellos(facts), *OSPF] for name, facts in devices.items()}
    return await rehearsal.rehearse(devices, topology, plan, {"R1": [expected]}, seconds)


def fast_hellos(facts: DeviceFacts) -> list[str]:
    """Point-to-point links with 1 s hellos: Full in about a second, no DR election."""
    return [
        line
        for i in facts["interfaces"]
        if i["name"] != "lo"
        for line in (
            f"interface {i['name']}",
            " ip ospf network point-to-point",
            " ip ospf hello-interval 1",
        )
    ]


async def until(condition: Callable[[], bool], seconds: float) -> float:
    """Seconds until `condition` held; fails after `seconds`."""
    started = time.monotonic()
    while not condition():
        assert time.monotonic() - started < seconds, "not within the time allowed"
        await asyncio.sleep(0.05)
    return time.monotonic() - started


def daemons_of_twins() -> list[str]:
    return [found for found in twin_leftovers() if found.startswith("process")]


async def test_a_twin_that_passes_leaves_nothing() -> None:
    answer = await rehearse(LabRehearsal(FrrLabTwins()), R2_FULL, 30)
    assert answer["kind"] == "passed", answer
    assert twin_leftovers() == []


async def test_a_twin_stops_at_its_deadline_and_leaves_nothing() -> None:
    started = time.monotonic()
    answer = await rehearse(LabRehearsal(FrrLabTwins()), NEVER, 2)
    took = time.monotonic() - started
    assert answer["kind"] == "failed" and answer["checks"]["R1"]["kind"] == "failed", answer
    assert took < 2 + 10, took  # its 2 s, building and teardown
    assert twin_leftovers() == []


async def test_a_cancelled_twin_is_torn_down_at_once_and_frees_its_slot() -> None:
    rehearsal = LabRehearsal(FrrLabTwins(), at_once=1)
    task = asyncio.create_task(rehearse(rehearsal, NEVER, 60))
    await until(lambda: bool(daemons_of_twins()), 30)  # its routers run, polling for 60 s
    assert netns.with_prefix(TWIN_PREFIX)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    gone = await until(lambda: twin_leftovers() == [], 10)  # not the 60 s of its deadline
    assert gone < 10
    again = await rehearse(rehearsal, R2_FULL, 30)  # the slot is free again
    assert again["kind"] == "passed", again
    assert twin_leftovers() == []


async def test_one_twin_at_a_time_the_second_change_is_told_busy() -> None:
    rehearsal = LabRehearsal(FrrLabTwins(), at_once=1)
    first = asyncio.create_task(rehearse(rehearsal, R2_FULL, 30))
    await until(lambda: bool(netns.with_prefix(TWIN_PREFIX)), 30)
    second = await rehearse(rehearsal, R2_FULL, 30)
    assert second["kind"] == "none" and second.get("why") == "busy", second
    assert (await first)["kind"] == "passed"
    assert twin_leftovers() == []


class StuckTwins(FrrLabTwins):
    """Real twins whose routers stop answering once started (a hung vtysh)."""

    @contextmanager
    def open(
        self,
        interfaces: Mapping[str, Sequence[tuple[str, str | None]]],
        configs: Mapping[str, str],
        links: Sequence[tuple[str, str, str, str]],
    ) -> Iterator[TwinSession]:
        with super().open(interfaces, configs, links) as twin:
            yield Stuck(twin)


class Stuck:
    def __init__(self, twin: TwinSession) -> None:
        self._twin = twin

    def type_lines(self, router: str, lines: Sequence[str]) -> list[str]:
        time.sleep(4)  # longer than the twin's time and its grace
        return self._twin.type_lines(router, lines)

    def read(self, router: str, command: str) -> str:
        return self._twin.read(router, command)

    def read_json(self, router: str, commands: Sequence[str]) -> list[str]:
        return self._twin.read_json(router, commands)


async def test_a_twin_over_its_time_says_so_and_is_torn_down_after(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(lab_twin_run, "TEARDOWN_GRACE", 0.5)
    answer = await rehearse(LabRehearsal(StuckTwins()), R2_FULL, 1)
    assert answer["kind"] == "none" and answer.get("why") == "timeout", answer
    assert answer.get("detail") == "1"
    await until(lambda: twin_leftovers() == [], 30)  # the worker thread finishes the teardown
