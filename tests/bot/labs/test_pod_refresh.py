"""Looking the pods up again (bot.runtime.pod_refresh) on its own, the discovery counted and the
clock a test's: however many places no lab answers for speak at once, the server is asked once,
and never sooner than LABBOT_LABS_LOOKUP_SECONDS after the last time; a server that cannot be
reached leaves the known pods serving, logged once and said to the place that asked; a gone
pod's runtime is kept while a change of it is open. (On a real server: test_gns3_pods_refresh.)"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field, replace
from types import SimpleNamespace
from typing import Any, cast

import httpx
import pytest

from adapters.chat import ThreadRef
from base.errors import ConfigError
from bot.labs.pods import pod_lab
from bot.labs.spec import GNS3Pods, GNS3Source, Lab, PodGroup
from bot.runtime.lab_router import LabRouter
from bot.runtime.pod_refresh import PodRefresh
from bot.runtime.wiring import Runtime

URL = "http://gns3.lab:3080"
GROUP = PodGroup(name="ccna", source=GNS3Pods(URL, "pod-*"), line=1, slack=("#pod-*",))


def pod(name: str) -> Lab:
    return pod_lab(GROUP, name, GNS3Source(URL, name))


@dataclass
class Server:
    """The GNS3 server's projects as the test makes them; each listing counted."""

    projects: list[str]
    down: bool = False
    listings: list[float] = field(default_factory=list)
    open_in: list[str] = field(default_factory=list)  # labs with a change open

    def runtime(self, lab: Lab, labs: tuple[Lab, ...]) -> Runtime:
        async def open_change_records() -> list[Any]:
            return [SimpleNamespace(lab=name) for name in self.open_in]

        return cast(
            Runtime, SimpleNamespace(audit=SimpleNamespace(open_change_records=open_change_records))
        )


class Clock:
    """Time that moves a millisecond each time it is read, and as far as it is slept."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        self.now += 0.001
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += seconds
        await asyncio.sleep(0)


def refreshing(server: Server, clock: Clock, *pods: str) -> tuple[LabRouter, PodRefresh]:
    labs = {name: pod(name) for name in pods}
    runtimes = {name: server.runtime(lab, ()) for name, lab in labs.items()}
    router = LabRouter(cast(Any, SimpleNamespace(platform="slack")), labs, runtimes)

    async def find(group: PodGroup) -> tuple[Lab, ...]:
        server.listings.append(clock())
        await asyncio.sleep(0)
        if server.down:
            raise httpx.ConnectError("All connection attempts failed")
        return tuple(
            pod_lab(group, name, GNS3Source(URL, name)) for name in sorted(server.projects)
        )

    refresh = PodRefresh((GROUP,), router, server.runtime, find, 10.0, clock, clock.sleep)
    router.look_up_pods = refresh.lookup
    return router, refresh


async def test_many_places_speaking_at_once_make_one_lookup_not_sooner_than_allowed() -> None:
    clock, server = Clock(), Server(["pod-1", "pod-2"])
    router, refresh = refreshing(server, clock, "pod-1", "pod-2")
    clock.now += 3  # 3 s after the lookup at start
    server.projects.append("pod-3")
    said = await asyncio.gather(*(refresh.lookup() for _ in range(50)))
    assert said == [""] * 50
    (first,) = server.listings  # once, 10 s after the one at start
    assert first >= 1010.0
    assert sorted(router.runtimes) == ["pod-1", "pod-2", "pod-3"]
    assert await router.lab_of(ThreadRef("slack", "#pod-3", "1")) == "pod-3"

    await refresh.lookup()  # asked after that lookup: the next, 10 s after it
    assert len(server.listings) == 2 and server.listings[1] >= first + 10.0


async def test_a_server_down_keeps_the_known_pods_and_is_said_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="bot.runtime.pod_refresh")
    clock, server = Clock(), Server(["pod-1", "pod-2"], down=True)
    router, refresh = refreshing(server, clock, "pod-1", "pod-2")
    for _ in range(3):
        said = await refresh.lookup()
        assert said.startswith("no lab answers here that labbot knows of, and the pods could not")
        assert URL not in said and "ccna" not in said  # told to any place: where is the log's
    assert sorted(router.runtimes) == ["pod-1", "pod-2"] and not router.gone
    warned = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warned) == 1 and "pods of ccna: cannot look them up" in warned[0].getMessage()
    assert f"GNS3 at {URL}: All connection attempts failed" in warned[0].getMessage()

    server.down = False
    server.projects.remove("pod-2")
    assert await refresh.lookup() == ""
    assert "pods of ccna: looked up again" in caplog.text
    assert "pods of ccna: gone pod-2" in caplog.text
    assert router.gone == {"pod-2"}


async def test_a_gone_pod_keeps_its_runtime_while_a_change_of_it_is_open() -> None:
    clock, server = Clock(), Server(["pod-1"], open_in=["pod-2"])
    router, refresh = refreshing(server, clock, "pod-1", "pod-2")
    await refresh.lookup()
    assert router.gone == {"pod-2"} and "pod-2" in router.runtimes  # its gates still decide
    server.open_in.clear()  # decided
    await refresh.lookup()
    assert "pod-2" not in router.runtimes
    server.projects.append("pod-2")  # made again: a fresh runtime
    await refresh.lookup()
    assert not router.gone and "pod-2" in router.runtimes


async def test_a_gone_pod_found_again_keeps_the_runtime_it_still_has(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A listing that flaps while a change of the pod is open: the pod comes back to the runtime
    holding its open change (and any push running), never a second one beside it."""
    caplog.set_level(logging.INFO, logger="bot.runtime.pod_refresh")
    clock, server = Clock(), Server(["pod-1"], open_in=["pod-2"])
    router, refresh = refreshing(server, clock, "pod-1", "pod-2")
    holding = router.runtimes["pod-2"]
    await refresh.lookup()
    assert router.gone == {"pod-2"}
    server.projects.append("pod-2")
    await refresh.lookup()
    assert not router.gone and router.runtimes["pod-2"] is holding
    assert "pods of ccna: back pod-2" in caplog.text


async def test_a_pod_found_later_has_the_students_the_labs_file_gives_it_now(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The instructor adds pod-3 and its students to the labs file and makes its project: no
    restart. A file broken meanwhile is logged once and the groups as last read serve on."""
    clock, server = Clock(), Server(["pod-1"])
    router, refresh = refreshing(server, clock, "pod-1")
    file: list[PodGroup | str] = [replace(GROUP, students=(("pod-3", ("U0NEW",)),))]

    def reread() -> tuple[PodGroup, ...]:
        if isinstance(file[0], str):
            raise ConfigError(file[0])
        return (file[0],)

    refresh.reread = reread
    server.projects.append("pod-3")
    await refresh.lookup()
    assert router.labs["pod-3"].students == ("U0NEW",)

    file[0] = "LABBOT_LABS: labs.yaml line 7: not YAML: …"
    server.projects.append("pod-4")
    for _ in range(2):
        await refresh.lookup()
    assert sorted(router.runtimes) == ["pod-1", "pod-3", "pod-4"]  # found with the last groups
    warned = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warned == [
        "LABBOT_LABS: labs.yaml line 7: not YAML: …; the pod groups as last read serve on"
    ]
