"""labbot as it is deployed: `labbot serve --http` processes (replicas) on one PostgreSQL, the
Slack stand-in for Slack, the simulated lab for the devices.

Shared by the reliability suite (tests/scale/) and bench/scale.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import sys
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import aiohttp

from bot.cli.demo import DEMO_CREDENTIALS
from tests.adapters.slack.payloads import click, mention
from tests.fakes.slack_api import (
    BOT_TOKEN,
    PEOPLE,
    SIGNING_SECRET,
    Posted,
    SlackApiStandIn,
    SlackSender,
)
from tests.support.clock import clock_env
from tests.support.postgres import SHARED_STORAGE_KEY

LABBOT = Path(sys.executable).with_name("labbot")  # the console script, as deployed
ROOT = Path(__file__).resolve().parents[2]
LISTENING = re.compile(r"listening on (http://\S+)/slack/events")
# A replica listens within seconds on an idle machine; on a shared one (load ~20 on 2 cores, tests
# niced) its imports alone took 64 s, and every test that starts one failed at 60.
STARTUP_SECONDS = 180.0

Json = dict[str, Any]
AUDIT_KEY = "scale-test-audit-key"


def serve_env(
    database_url: str, api: SlackApiStandIn, inventory: Path | None, **settings: str
) -> dict[str, str]:
    """The environment of a replica: only what labbot needs (no settings leak in from outside)."""
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": os.environ.get("HOME", "/tmp"),
        "PYTHONPATH": str(ROOT),
        "LABBOT_DATABASE_URL": database_url,
        "SLACK_BOT_TOKEN": BOT_TOKEN,
        "SLACK_SIGNING_SECRET": SIGNING_SECRET,
        "SLACK_API_URL": api.base_url,
        "LABBOT_DEVICE_USERNAME": DEMO_CREDENTIALS["username"],
        "LABBOT_DEVICE_PASSWORD": DEMO_CREDENTIALS["password"],
        "LABBOT_DEVICE_SECRET": DEMO_CREDENTIALS["secret"],
        "LABBOT_AUDIT_KEY": AUDIT_KEY,  # replicas share one key, as a deployment must
        "LABBOT_STORAGE_KEY": SHARED_STORAGE_KEY,  # and one key sealing device text
        # one requester opens up to 100 changes at once here: a load test, not a team's day
        "LABBOT_MAX_OPEN_PER_USER": "1000",
        "LABBOT_MAX_OPEN_PER_CHANNEL": "1000",
    } | clock_env()
    if inventory is not None:
        env["LABBOT_INVENTORY"] = str(inventory)
    return env | settings


@dataclass
class Replica:
    """One `labbot serve --http --port 0` process; its stderr is collected as it runs."""

    process: asyncio.subprocess.Process
    log: list[str] = field(default_factory=list)
    base_url: str = ""
    _reader: asyncio.Task[None] | None = None

    @property
    def events_url(self) -> str:
        return self.base_url + "/slack/events"

    @property
    def pid(self) -> int:
        return self.process.pid

    def rss_bytes(self) -> int:
        """Resident memory now, from /proc (what the kernel charges the process)."""
        return rss_of(self.pid)

    def tree_rss_bytes(self) -> int:
        """Resident memory now of the process and its children (render workers), theirs too."""
        return sum(rss_of(pid) for pid in process_tree(self.pid))

    async def _read_log(self) -> None:
        assert self.process.stderr is not None
        async for raw in self.process.stderr:
            self.log.append(raw.decode(errors="replace").rstrip())

    async def wait_listening(self, within: float = STARTUP_SECONDS) -> None:
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            found = next((m for line in self.log if (m := LISTENING.search(line))), None)
            if found:
                self.base_url = found.group(1)
                return
            if self.process.returncode is not None:
                break
            await asyncio.sleep(0.05)
        raise AssertionError("labbot serve did not start:\n" + "\n".join(self.log))

    async def kill(self) -> None:
        """SIGKILL: no cleanup, no goodbye, as a crash or an OOM kill."""
        with contextlib.suppress(ProcessLookupError):
            self.process.send_signal(signal.SIGKILL)
        await self.wait()

    async def wait(self) -> int:
        code = await self.process.wait()
        if self._reader is not None:
            await self._reader
        return code


def rss_of(pid: int) -> int:
    """VmRSS of a process from /proc (0 once it has gone)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return 0
    kib = next((line.split()[1] for line in status.splitlines() if line.startswith("VmRSS:")), 0)
    return int(kib) * 1024


def process_tree(pid: int) -> list[int]:
    """`pid` and its descendants, as /proc lists each thread's children."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        for children in Path(f"/proc/{current}/task").glob("*/children"):
            try:
                todo.extend(int(child) for child in children.read_text().split())
            except (FileNotFoundError, ProcessLookupError):
                continue  # the thread ended while we read
    return found


async def start_replica(
    env: dict[str, str], cwd: Path, *args: str, program: Path = LABBOT
) -> Replica:
    """Start `labbot serve --http` (or `labbot ARGS` when given) without waiting for it."""
    argv = args or ("serve", "--http", "--host", "127.0.0.1", "--port", "0")
    process = await asyncio.create_subprocess_exec(
        str(program),
        *argv,
        cwd=cwd,
        env=env,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    replica = Replica(process)
    replica._reader = asyncio.create_task(replica._read_log())
    return replica


@contextlib.asynccontextmanager
async def replicas(env: dict[str, str], cwd: Path, count: int) -> AsyncIterator[list[Replica]]:
    """`count` replicas serving, stopped (SIGTERM, then SIGKILL) when the block ends."""
    started = [await start_replica(env, cwd) for _ in range(count)]
    try:
        await asyncio.gather(*(r.wait_listening() for r in started))
        yield started
    except BaseException:
        for replica in started:  # pytest shows it with the failure
            print(f"--- labbot serve (pid {replica.pid}) log:", *replica.log, sep="\n")
        raise
    finally:
        await asyncio.gather(*(stop(r) for r in started))


async def stop(replica: Replica) -> None:
    if replica.process.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            replica.process.terminate()
        try:
            await asyncio.wait_for(replica.process.wait(), 10)
        except TimeoutError:
            await replica.kill()
    await replica.wait()


@dataclass
class SlackSide:
    """What people do in Slack (mention, click) and what they see (the stand-in's messages), in
    one channel (`in_channel`: the same people and replicas in another)."""

    api: SlackApiStandIn
    senders: list[SlackSender] = field(default_factory=list)
    channel: str = "C1"

    def in_channel(self, channel: str) -> SlackSide:
        return replace(self, channel=channel)  # the same senders (the list is shared)

    async def connect(self, replicas: list[Replica]) -> None:
        self.senders[:] = [SlackSender(r.events_url) for r in replicas]  # seen by in_channel's
        for sender in self.senders:
            await sender.__aenter__()

    async def close(self) -> None:
        for sender in self.senders:
            await sender.__aexit__()

    async def mention(self, text: str, *, via: int = 0, user: str = "U1", thread: str = "") -> str:
        body = mention(text, user=user, channel=self.channel, thread_ts=thread)
        status, _ = await self.senders[via].event(body)
        assert status == 200
        return thread or str(body["event"]["ts"])

    async def click_all(self, message: Posted, label: str, users: list[str]) -> list[int]:
        """The same button pressed by each of `users`, each press sent to another replica, all
        at once (two people clicking together behind a load balancer)."""
        return await self.press(clicks(message, label, users))

    async def press(self, payloads: list[Json]) -> list[int]:
        """Send prepared clicks at once, spread over the replicas."""
        sends = [
            self.senders[i % len(self.senders)].interaction(payload)
            for i, payload in enumerate(payloads)
        ]
        return [status for status, _ in await asyncio.gather(*sends)]

    def thread(self, thread: str) -> list[Posted]:
        return self.api.thread(self.channel, thread)

    async def wait_message(
        self, thread: str, test: Callable[[Posted], bool], within: float = 90
    ) -> Posted:
        try:
            return await self.api.wait_for(
                lambda: next((m for m in self.thread(thread) if test(m)), None), within=within
            )
        except AssertionError:
            said = "\n".join(m.all_text[:300] for m in self.thread(thread))
            raise AssertionError(f"thread {thread} never showed it; it has:\n{said}") from None

    async def gate(self, thread: str, label: str, within: float = 90) -> Posted:
        """The message of the thread offering the button `label`."""
        return await self.wait_message(thread, lambda m: has_button(m, label), within)

    async def said(self, thread: str, words: str, within: float = 90) -> Posted:
        return await self.wait_message(thread, lambda m: words in m.all_text, within)


def clicks(message: Posted, label: str, users: list[str]) -> list[Json]:
    """Payloads of `users` pressing `label` on `message` as it looks now (buttons go away once
    a gate is decided: prepare a late click before)."""
    return [click(message, label, user=user, name=PEOPLE[user]) for user in users]


def has_button(message: Posted, label: str) -> bool:
    return any(b["text"]["text"] == label for b in message.buttons)


async def scrape(base_url: str, path: str) -> tuple[int, str]:
    async with aiohttp.ClientSession() as session, session.get(base_url + path) as response:
        return response.status, await response.text()


def metric(text: str, name: str, **labels: str) -> float:
    """A sample's value from Prometheus text (0 when absent)."""
    wanted = ",".join(f'{k}="{v}"' for k, v in sorted(labels.items()))
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        key, _, value = line.rpartition(" ")
        sample, _, label_text = key.partition("{")
        given = ",".join(sorted(label_text.rstrip("}").split(","))) if label_text else ""
        if sample == name and given == wanted:
            return float(value)
    return 0.0


class TcpProxy:
    """A TCP forwarder on `host` (127.0.0.1) to `target`: the database "goes away" when it stops
    (its connections are cut) and "comes back" when it starts again on the same port.

    `hang_on(words)`: once the client sends `words` (e.g. `configure terminal`, a device's push
    after its reads), no byte goes either way until `release()` — a peer that stops answering."""

    def __init__(
        self, target_host: str, target_port: int, port: int = 0, host: str = "127.0.0.1"
    ) -> None:
        self.target = (target_host, target_port)
        self.host, self.port = host, port
        self.trigger = b""
        self.flowing = asyncio.Event()
        self.flowing.set()
        self._server: asyncio.Server | None = None
        self._pipes: set[asyncio.Task[None]] = set()

    def hang_on(self, words: bytes) -> None:
        self.trigger = words

    def release(self) -> None:
        self.trigger = b""
        self.flowing.set()

    async def start(self) -> TcpProxy:
        self._server = await asyncio.start_server(self._connect, self.host, self.port)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None
        for pipe in list(self._pipes):
            pipe.cancel()
        await asyncio.gather(*self._pipes, return_exceptions=True)

    async def _connect(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(*self.target)
        except OSError:
            writer.close()
            return
        for source, sink, outbound in (
            (reader, upstream_writer, True),
            (upstream_reader, writer, False),
        ):
            task = asyncio.create_task(self._pipe(source, sink, outbound))
            self._pipes.add(task)
            task.add_done_callback(self._pipes.discard)

    async def _pipe(
        self, source: asyncio.StreamReader, sink: asyncio.StreamWriter, outbound: bool
    ) -> None:
        try:
            while data := await source.read(65536):
                if outbound and self.trigger and self.trigger in data:
                    self.flowing.clear()
                await self.flowing.wait()
                sink.write(data)
                await sink.drain()
        except ConnectionError:
            pass
        finally:
            sink.close()
