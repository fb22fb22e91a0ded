"""Running the lab's twin before the params gate: off the event loop, bounded, always torn down.

```
check_params ─► twin_answer ─► LabRehearsal.rehearse ─► (worker thread) TwinLabs.open
                                                          type the previewed lines into each target
                                                          poll the post-checks until all pass or
                                                          the deadline; failed: read why sessions
                                                          stayed down (lab_twin_causes); leave
                                                          the block: torn down
```
The thread holds one of LABBOT_LAB_TWINS slots (none free: no twin, "busy"), polls until the
twin's deadline (LABBOT_LAB_TWIN_SECONDS from its start, at most the template's own timeout)
and leaves the twin's block whatever happens, so the twin is ended by it (daemons, namespaces,
folder). A node cancelled or timed out meanwhile sets the job's `stop`: the thread ends its
polling at the next round and tears the twin down at once, then frees its slot.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from typing import Protocol

from base.errors import LabbotError
from workflow.model import DeviceFacts, TemplateProposal, Topology
from workflow.options import WorkflowOptions
from workflow.phases.lab_twin import (
    LabTwinAnswer,
    answer_of,
    judged,
    no_twin,
    twin_interfaces,
    twin_links,
    twin_refusal,
    wants_twin,
)
from workflow.phases.lab_twin_causes import session_causes
from workflow.phases.postcheck_report import planned_expectations
from workflow.phases.previews import DevicePreview
from workflow.ports import DeviceGateway
from workflow.postcheck_outcome import DeviceChecks
from workflow.postcheck_spec import parse_post_checks
from workflow.postchecks.evaluate import Expectation
from workflow.postchecks.parsers import Topic, commands, parse

__all__ = ["LabRehearsal", "twin_answer"]

POLL_PAUSE = 0.25  # seconds between two rounds of reads on the twin
TEARDOWN_GRACE = 20.0  # beyond its deadline, what a twin may take to end before it is let go


class TwinSession(Protocol):
    """A started twin: lines typed into a router (the refused ones back), reads."""

    def type_lines(self, router: str, lines: Sequence[str]) -> list[str]: ...

    def read(self, router: str, command: str) -> str: ...

    def read_json(self, router: str, commands: Sequence[str]) -> list[str]:
        """Each command's output (each one JSON document), read at once."""
        ...


class TwinLabs(Protocol):
    """Builds twins of labs (frrlab.lab_twin.FrrLabTwins): never touches a lab's own routers."""

    def unavailable(self) -> str | None:
        """Why this host cannot run a twin; None when it can."""
        ...

    def open(
        self,
        interfaces: Mapping[str, Sequence[tuple[str, str | None]]],
        configs: Mapping[str, str],
        links: Sequence[tuple[str, str, str, str]],
    ) -> AbstractContextManager[TwinSession]:
        """The twin, started; ended when the block is left."""
        ...


class LabRehearsal:
    """Twins of the lab, at most `at_once` of them at a time, each at most `max_routers`."""

    def __init__(self, labs: TwinLabs, *, at_once: int = 1, max_routers: int = 20) -> None:
        self._labs = labs
        self._slots = threading.BoundedSemaphore(at_once)
        self.max_routers = max_routers

    async def rehearse(
        self,
        devices: Mapping[str, DeviceFacts],
        topology: Topology,
        plan: Mapping[str, Sequence[str]],
        expected: Mapping[str, Sequence[Expectation]],
        seconds: float,
    ) -> LabTwinAnswer:
        """The lab (`devices`, every one read) again, `plan` typed in, `expected` polled."""
        why = self._labs.unavailable()
        if why is not None:
            return no_twin("no_host", why, len(devices))
        job = _Job(self._labs, devices, topology, plan, expected, seconds)
        try:
            async with asyncio.timeout(seconds + TEARDOWN_GRACE):
                return await asyncio.to_thread(self._run, job)
        except TimeoutError:
            return no_twin("timeout", f"{seconds:g}", len(devices), seconds)
        finally:
            job.stop.set()  # cancelled or timed out: the thread stops polling and tears down

    def _run(self, job: _Job) -> LabTwinAnswer:
        if not self._slots.acquire(blocking=False):
            return no_twin("busy", "", len(job.devices))
        try:
            return job.run()
        finally:
            self._slots.release()


class _Job:
    """One twin's run, in a worker thread."""

    def __init__(
        self,
        labs: TwinLabs,
        devices: Mapping[str, DeviceFacts],
        topology: Topology,
        plan: Mapping[str, Sequence[str]],
        expected: Mapping[str, Sequence[Expectation]],
        seconds: float,
    ) -> None:
        self.labs, self.devices, self.plan, self.expected = labs, devices, plan, expected
        self.stop = threading.Event()  # set: nobody waits for the answer any more
        self.links = twin_links(topology["links"], devices)
        self.seconds = seconds

    def run(self) -> LabTwinAnswer:
        started = time.monotonic()
        configs = {name: facts["running_config"] for name, facts in self.devices.items()}
        try:
            interfaces = twin_interfaces(self.devices, self.links)
            with self.labs.open(interfaces, configs, self.links) as twin:
                refused = {name: twin.type_lines(name, lines) for name, lines in self.plan.items()}
                checks = poll(twin, self.expected, started + self.seconds, self.stop)
                seconds = time.monotonic() - started  # the causes' reads aside
                failed = any(c["kind"] != "passed" for c in checks.values())
                wanted = failed and not self.stop.is_set()
                causes = session_causes(checks, self.links, twin.read) if wanted else []
        except (LabbotError, OSError) as err:
            return no_twin("error", str(err), len(self.devices), time.monotonic() - started)
        return answer_of(checks, refused, len(self.devices), seconds, causes)


def poll(
    twin: TwinSession,
    expected: Mapping[str, Sequence[Expectation]],
    deadline: float,
    stop: threading.Event | None = None,
) -> dict[str, DeviceChecks]:
    """Read every target's routing state until all its checks pass, `deadline` passes or
    `stop` is set."""
    started = time.monotonic()
    checks: dict[str, DeviceChecks] = {}
    while True:
        final = time.monotonic() >= deadline or (stop is not None and stop.is_set())
        for name, wanted in expected.items():
            if name in checks and checks[name]["kind"] == "passed":
                continue
            state = parse("frr", _reads(twin, name, {e.topic for e in wanted}))
            checks[name] = judged(wanted, state, time.monotonic() - started, final=final)
        if final or all(c["kind"] == "passed" for c in checks.values()):
            return checks
        pause = max(0.0, min(POLL_PAUSE, deadline - time.monotonic()))
        if stop is not None:
            stop.wait(pause)
        else:
            time.sleep(pause)


def _reads(twin: TwinSession, router: str, topics: set[Topic]) -> dict[Topic, str]:
    reads = commands("frr", topics) or {}
    return dict(zip(reads, twin.read_json(router, list(reads.values())), strict=True))


async def twin_answer(
    rehearsal: LabRehearsal | None,
    gateway: DeviceGateway,
    template: TemplateProposal,
    previews: Mapping[str, DevicePreview],
    topology: Topology,
    options: WorkflowOptions,
) -> LabTwinAnswer | None:
    """The lab's twin's answer for the previewed lines (None: no twin is meant for this change:
    none configured, no post-checks, or no FRR target)."""
    checks, _ = parse_post_checks(template.get("post_checks"))
    plan = {name: p["lines"] for name, p in previews.items() if p["lines"]}
    if rehearsal is None or checks is None or not plan:
        return None
    if not wants_twin(topology["devices"], sorted(plan)):
        return None
    devices = await _whole_lab(gateway, topology, rehearsal.max_routers)
    refusal = twin_refusal(devices, rehearsal.max_routers)
    if refusal is not None:
        return no_twin(*refusal, routers=len(devices))
    expected = planned_expectations(checks, previews, sorted(plan), topology)
    wait = min(options.lab_twin_seconds, checks["timeout"])
    return await rehearsal.rehearse(devices, topology, plan, expected, wait)


async def _whole_lab(
    gateway: DeviceGateway, topology: Topology, max_routers: int
) -> dict[str, DeviceFacts]:
    """Every device of the lab with its facts: those the request did not select are read now
    (read only), unless the lab is too large for a twin anyway."""
    devices = dict(topology["devices"])
    unread = sorted(name for name, facts in devices.items() if "error" in facts)
    if unread and len(devices) <= max_routers:
        devices |= await gateway.facts(unread)
    return devices
