"""The post-check Nornir task: one session per device, polled until every expectation holds or
the deadline passes. Reads are privileged and refused reads fail the device (see tasks.py).

Each device waits on its own: a router that converged is reported passed at once, while the
others keep polling; a device whose evidence changes reports it as progress (at most every
`report_every` seconds), so the thread shows what is still missing while it waits. Between
those, a round of reads stops at the first topic still unmet (read first next round): a device
that has not converged costs one read per round. A device passes only on a round that read
every topic, and what a failure or a report shows was read in that round.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from nornir.core.task import Result, Task

from workflow.devices.runner import LoopBridge, Timeouts
from workflow.devices.tasks import DeviceResult, read_privileged, run_reported
from workflow.postcheck_outcome import DeviceChecks, Missing, OutcomeKind
from workflow.postchecks.evaluate import Expectation, unmet
from workflow.postchecks.parsers import RoutingState, Topic, commands, parse

PAUSE_GROWTH_SECONDS = 4.0  # the pause between rounds grows by `interval` every this many s
MAX_PAUSE = 1.0


@dataclass(frozen=True)
class CheckJob:
    expected: Mapping[str, Sequence[Expectation]]
    deadline: float  # time.monotonic() after which a device that still fails has failed
    bridge: LoopBridge
    timeouts: Timeouts
    interval: float = 0.05  # seconds between two rounds of reads at first, growing with the wait
    report_every: float = 5.0  # seconds between two progress reports of one device


def post_check(task: Task, job: CheckJob) -> Result:
    """Nornir task: poll the device until its expectations hold or the deadline passes."""
    expected = job.expected[task.host.name]
    return run_reported(task, job.bridge, lambda: _poll(task, job, expected))


def _poll(task: Task, job: CheckJob, expected: Sequence[Expectation]) -> DeviceResult:
    platform = task.host.platform or ""
    reads = commands(platform, {e.topic for e in expected})
    if reads is None:
        return DeviceResult(False, check=_outcome("no_parser", 0.0, expected, [], platform))
    started, reported, last = time.monotonic(), 0.0, None
    states: dict[Topic, RoutingState] = {}  # what each topic showed when last read
    order: list[Topic] = list(reads)
    while True:
        final = time.monotonic() >= job.deadline
        complete = final or time.monotonic() - reported >= job.report_every
        _read_round(task, job, reads, order, expected, states, complete)
        missing = [why for e in expected if (why := unmet(e, states[e.topic])) is not None]
        now = time.monotonic()
        if not missing:
            return DeviceResult(True, check=_outcome("passed", now - started, expected, []))
        if final:
            return DeviceResult(False, check=_outcome("failed", now - started, expected, missing))
        if complete:
            if missing != last:
                waiting = _outcome("waiting", now - started, expected, missing)
                waiting["within"] = round(job.deadline - started)
                job.bridge.progress(task.host.name, "started", check=waiting)
            reported, last = now, missing
        time.sleep(max(0.0, min(round_pause(job.interval, now - started), job.deadline - now)))


def round_pause(interval: float, waited: float) -> float:
    """Seconds to the next round: `interval` at first (a change converging in a second or two is
    seen at once), then longer the longer the device takes (0.1 s after 4 s, 0.2 s after 12 s,
    at most MAX_PAUSE): a slow BGP session is not read twenty times a second for a minute."""
    return min(MAX_PAUSE, interval * (1 + waited / PAUSE_GROWTH_SECONDS))


def _read_round(
    task: Task,
    job: CheckJob,
    reads: Mapping[Topic, str],
    order: list[Topic],
    expected: Sequence[Expectation],
    states: dict[Topic, RoutingState],
    complete: bool,
) -> None:
    """Read the topics in `order` into `states`, each parsed once. Unless the round must be
    `complete` (the first, the last, and one per report), a topic still unmet ends it and is
    read first next time: the device has not converged, and the other reads would only cost
    time."""
    platform = task.host.platform or ""
    for topic in tuple(order):
        output = read_privileged(task, reads[topic], job.timeouts)
        states[topic] = parse(platform, {topic: output})
        if complete:
            continue
        if any(unmet(e, states[topic]) is not None for e in expected if e.topic == topic):
            order.remove(topic)
            order.insert(0, topic)
            return


def _outcome(
    kind: OutcomeKind,
    seconds: float,
    expected: Sequence[Expectation],
    missing: list[Missing],
    platform: str = "",
) -> DeviceChecks:
    unmet_facts = [m["fact"] for m in missing]
    met = [fact for e in expected if (fact := e.fact()) not in unmet_facts]
    return DeviceChecks(
        kind=kind, seconds=round(seconds, 1), met=met, missing=missing, platform=platform
    )
