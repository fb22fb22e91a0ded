"""Many labs behind `labbot serve --http` replicas on one PostgreSQL: N simulated labs with the
same device names (R1..RD), served in a process of their own, a labs file (LABBOT_LABS) giving
each lab its own Slack channel of the stand-in; a change asked and approved in a lab, and the
check that every lab's change landed once, in that lab only (bench.many_labs, test_many_labs).

The labs run apart from the test's process so that their telnet sessions do not share its
interpreter with the Slack stand-in and the clicks being timed."""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path

from bot.cli.demo import DEMO_CREDENTIALS
from labsim import Lab, demo_topology
from tests.fakes.slack_api import Posted, SlackApiStandIn
from tests.scale.deployment import open_audit, serving
from tests.scale.harness import Replica, SlackSide, clicks, has_button, serve_env

LOGIN = {k: DEMO_CREDENTIALS[k] for k in ("username", "password", "secret")}
GATES = ("Approve", "Execute")  # the library template's two steps
STOP_SECONDS = 30.0


@dataclass(frozen=True)
class Seen:
    """What a simulated device holds and was told, read when asked."""

    running_config: str
    commands: tuple[str, ...]


Devices = dict[str, dict[str, Seen]]  # lab -> device -> what it saw


def lab_names(count: int) -> list[str]:
    return [f"lab{n:02d}" for n in range(1, count + 1)]


def channel_of(lab: str) -> str:
    return "C" + lab.upper()  # a channel id, as Slack spells them


def labs_file(labs: list[str]) -> str:
    """The labs file: each lab's inventory (LAB/hosts.yaml beside it), its channel, bob approves."""
    entries = "".join(
        f"  {lab}:\n    inventory: {lab}/hosts.yaml\n    slack: {channel_of(lab)}\n"
        "    approvers: [U2]\n"
        for lab in labs
    )
    return "labs:\n" + entries


class LabsElsewhere:
    """The labs' process, as seen from here: `devices()` reads every device over its pipe."""

    def __init__(self, pipe: Connection, labs: list[str]) -> None:
        self.pipe, self.labs = pipe, labs

    async def devices(self) -> Devices:
        self.pipe.send("devices")
        seen: Devices = await asyncio.to_thread(self.pipe.recv)
        return seen


@contextlib.asynccontextmanager
async def labs_elsewhere(directory: Path, count: int, devices: int) -> AsyncIterator[LabsElsewhere]:
    """`count` labs of `devices` routers each in a process of their own; their inventories
    written to DIRECTORY/LAB/hosts.yaml. The process ends with the block (killed if it lingers)."""
    spawn = multiprocessing.get_context("spawn")  # no copy of this process's loops and threads
    ours, theirs = spawn.Pipe()
    labs = lab_names(count)
    process = spawn.Process(target=_serve_labs, args=(theirs, directory, labs, devices))
    process.start()
    try:
        ready = await asyncio.to_thread(ours.poll, 120)
        if not ready or ours.recv() != "ready":
            raise AssertionError("the simulated labs did not start")
        yield LabsElsewhere(ours, labs)
    finally:
        with contextlib.suppress(OSError):
            ours.send("stop")
        await asyncio.to_thread(process.join, STOP_SECONDS)
        if process.is_alive():
            process.kill()
            await asyncio.to_thread(process.join)


def _serve_labs(parent: Connection, directory: Path, labs: list[str], devices: int) -> None:
    async def serve() -> None:
        async with contextlib.AsyncExitStack() as stack:
            started: dict[str, Lab] = {}
            for lab in labs:
                topology = demo_topology(devices, switch=False)
                started[lab] = await stack.enter_async_context(
                    Lab.start(topology, ssh=False, **LOGIN)
                )
                (directory / lab).mkdir(parents=True, exist_ok=True)
                started[lab].write_inventory(directory / lab / "hosts.yaml", transport="telnet")
            parent.send("ready")
            while await asyncio.to_thread(parent.recv) == "devices":
                parent.send({name: _seen(lab) for name, lab in started.items()})

    asyncio.run(serve())


def _seen(lab: Lab) -> dict[str, Seen]:
    return {d.name: Seen(d.running_config(), tuple(d.commands_seen)) for d in lab.devices}


@dataclass
class ManyLabs:
    database_url: str
    slack: SlackSide  # in no lab's channel: `slack.in_channel(channel_of(lab))`
    labs: LabsElsewhere
    replicas: list[Replica]


@contextlib.asynccontextmanager
async def many_labs(
    workdir: Path,
    database_url: str,
    api: SlackApiStandIn,
    *,
    labs: int,
    devices: int,
    count: int = 2,
    **settings: str,
) -> AsyncIterator[ManyLabs]:
    """`labs` simulated labs of `devices` routers and `count` replicas serving them all."""
    async with labs_elsewhere(workdir, labs, devices) as running:
        path = workdir / "labs.yaml"
        path.write_text(labs_file(running.labs))
        env = serve_env(database_url, api, None, LABBOT_LABS=str(path), **settings)
        async with serving(env, api, workdir, count) as (slack, started):
            yield ManyLabs(database_url, slack, running, started)


def server_of(index: int) -> str:
    return f"10.88.{index}.1"  # the NTP server lab number `index` is asked for: its own


async def one_change(
    bed: ManyLabs, index: int, devices: int, acks: list[float], within: float = 120
) -> None:
    """In lab number `index`'s channel, alice asks for its NTP server on all its devices; bob
    clicks through both gates, each click to the next replica (a load balancer); each click's
    round trip (ms) goes to `acks`. Returns once the change has ended, pushed on every device."""
    lab = bed.labs.labs[index]
    side = bed.slack.in_channel(channel_of(lab))
    senders = side.senders
    thread = await side.mention(
        f"apply ntp to all servers={server_of(index)}", via=index % len(senders)
    )
    for step, label in enumerate(GATES):
        gate = await side.wait_message(thread, offering(label), within)
        assert has_button(gate, label), (lab, gate.text)  # a failure ends the run, not its wait
        payload = clicks(gate, label, ["U2"])[0]
        started = time.perf_counter()
        status, _ = await senders[(index + step + 1) % len(senders)].interaction(payload)
        acks.append((time.perf_counter() - started) * 1000)
        assert status == 200, (lab, label, status)
    ended = await side.wait_message(thread, finished, within=within)
    assert f"pushed: ✓ {devices} ✗ 0 of {devices}" in ended.text, (lab, ended.text)


def offering(label: str) -> Callable[[Posted], bool]:
    """The message offering `label`, or one saying the step failed ("Something went wrong…")."""
    return lambda message: has_button(message, label) or message.text.startswith(":x:")


def finished(message: Posted) -> bool:
    return message.text.startswith("Change chg-")  # bot.messages FINISHED_TITLE: the last word


async def verify(bed: ManyLabs, devices: int) -> None:
    """After `one_change` in every lab: each device was told its lab's server once and holds no
    other lab's; the audit has one push row per (lab, device), one change row per lab, and every
    row of a change names the change's lab."""
    servers = {lab: server_of(i) for i, lab in enumerate(bed.labs.labs)}
    seen = await bed.labs.devices()
    for lab, by_device in seen.items():
        assert len(by_device) == devices, (lab, sorted(by_device))
        for device, it in by_device.items():
            told = [c.strip() for c in it.commands if c.strip().startswith("ntp server")]
            assert told == [f"ntp server {servers[lab]}"], (lab, device, told)
            held = {s for s in servers.values() if f"ntp server {s}" in it.running_config}
            assert held == {servers[lab]}, (lab, device, held)
    async with open_audit(bed.database_url) as audit:
        entries = await audit.entries()
    pushes = Counter((e.lab, e.device) for e in entries if e.kind == "push")
    wanted = {(lab, f"R{n}") for lab in servers for n in range(1, devices + 1)}
    assert set(pushes) == wanted and set(pushes.values()) == {1}, pushes
    changes = {e.change_id: e.lab for e in entries if e.kind == "change"}
    assert sorted(changes.values()) == sorted(servers), changes
    assert all(e.lab == changes[e.change_id] for e in entries if e.change_id)
