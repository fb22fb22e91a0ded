"""The thread side of the gateway: a Nornir object built in code, and the bridge back to asyncio.

Nornir's threaded runner blocks, so the gateway runs it through `asyncio.to_thread`. Code on the
worker threads reaches the event loop only through `LoopBridge`, which keeps every progress
callback on the loop thread as the ports promise.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from nornir.core import Nornir
from nornir.core.configuration import Config, LoggingConfig
from nornir.core.inventory import ConnectionOptions, Defaults, Groups, Host, Hosts, Inventory
from nornir.core.plugins.connections import ConnectionPluginRegister
from nornir.plugins.runners import ThreadedRunner
from nornir_netmiko.connections import CONNECTION_NAME, Netmiko

from base.masking import occurrences
from workflow.devices.failure import DeviceFailure, SayFailure
from workflow.devices.inventories.device_types import netmiko_type
from workflow.devices.session_limits import DEFAULT_SESSIONS, worker_count
from workflow.model import Device, ProgressCallback, PushProgress
from workflow.postcheck_outcome import DeviceChecks
from workflow.results.progress_edits import ProgressEdits
from workflow.safety.masked_lines import SECRET_MASK

__all__ = ["Credentials", "Timeouts", "build_nornir"]

log = logging.getLogger(__name__)
NORNIR_TASK_LOGGER = "nornir.core.task"  # logs a failed task's traceback at ERROR


@dataclass(frozen=True)
class Credentials:
    """Device credentials from settings. `scrub` keeps them out of anything shown to users."""

    username: str | None
    password: str | None
    secret: str | None

    def scrub(self, text: str) -> str:
        """`text` with the password and secret masked as the chat's scrubber masks them: a
        short one only as a token of its own, so a password `admin` (containerlab's default)
        leaves FRR's `administrativeStatus` and IOS's `administratively down` readable."""
        for value in (self.password, self.secret):
            if value and len(value) >= 3:  # masking "a" everywhere would garble the output
                text = occurrences(value).sub(SECRET_MASK, text)
        return text

    def __repr__(self) -> str:  # never let a traceback or log line show them
        return f"Credentials(username={self.username!r}, password=***, secret=***)"

    def for_device(self, device: Device) -> Credentials:
        """The device's own login from its inventory, these settings filling what it lacks."""
        return Credentials(
            device.username or self.username,
            device.password or self.password,
            device.secret or self.secret,
        )


@dataclass(frozen=True)
class Timeouts:
    connect: float
    read: float


def build_nornir(
    devices: Sequence[Device],
    credentials: Credentials,
    timeouts: Timeouts,
    sessions: int = DEFAULT_SESSIONS,
) -> Nornir:
    """One Nornir per run: no config files, no ./nornir.log, a worker per device up to
    `sessions` (a bigger run waits for free workers instead of starting a thread each)."""
    quiet_task_tracebacks()
    ConnectionPluginRegister.register(CONNECTION_NAME, Netmiko)  # idempotent for the same class
    hosts = Hosts(
        {device.name: _host(device, credentials.for_device(device), timeouts) for device in devices}
    )
    return Nornir(
        inventory=Inventory(hosts=hosts, groups=Groups(), defaults=Defaults()),
        runner=ThreadedRunner(num_workers=worker_count(len(devices), sessions)),
        config=Config(logging=LoggingConfig(enabled=False)),
    )


class TracebackToDebug(logging.Filter):
    """Nornir logs a task's failure with its traceback at ERROR, which a console without
    logging set up prints (Python's last resort) amid the chat: the failure is the task's
    result, said in one line where it is shown; the traceback goes to labbot's debug log."""

    def filter(self, record: logging.LogRecord) -> bool:
        if "failed with traceback" not in str(record.msg):
            return True
        log.debug("%s", record.getMessage())
        return False


def quiet_task_tracebacks() -> None:
    """Install TracebackToDebug on Nornir's task logger, once."""
    logger = logging.getLogger(NORNIR_TASK_LOGGER)
    if not any(isinstance(f, TracebackToDebug) for f in logger.filters):
        logger.addFilter(TracebackToDebug())


def _host(device: Device, login: Credentials, timeouts: Timeouts) -> Host:
    extras = {
        "secret": login.secret or "",
        "conn_timeout": timeouts.connect,  # for telnet also the socket timeout
        "auth_timeout": timeouts.connect,
        "banner_timeout": timeouts.connect,
        "timeout": timeouts.read,
        "fast_cli": True,
    }
    return Host(
        name=device.name,
        hostname=device.host,
        port=device.port,
        platform=device.platform,
        username=login.username or "",
        password=login.password or "",
        connection_options={
            CONNECTION_NAME: ConnectionOptions(
                platform=netmiko_type(device.platform), extras=extras
            )
        },
    )


def host_credentials(host: Host) -> Credentials:
    """The login a Nornir host of `build_nornir` uses (to scrub it from what it prints)."""
    options = host.connection_options.get(CONNECTION_NAME)
    secret = (options.extras or {}).get("secret") if options else None
    return Credentials(host.username, host.password, secret)


class LoopBridge:
    """Progress events from Nornir worker threads, handed in order to the sink on the event
    loop's thread; its chat edits run one at a time, the latest state replacing a waiting one
    (`ProgressEdits`), so the push never waits behind one edit per event."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        on_progress: ProgressCallback | None,
        total: int,
        say: SayFailure,
    ) -> None:
        self._loop = loop
        self._say = say
        self._on_progress = on_progress
        self._total = total
        self._finished = 0
        self._count_lock = threading.Lock()
        self._edits = ProgressEdits("push progress")

    def progress(
        self,
        device: str,
        stage: Literal["started", "done", "failed"],
        failure: DeviceFailure | None = None,
        check: DeviceChecks | None = None,
    ) -> None:
        """Thread-safe; the sink itself runs on the loop thread; a failure is said in words
        (`say`, the bot's wording)."""
        on_progress = self._on_progress
        if on_progress is None:
            return
        with self._count_lock:
            if stage != "started":
                self._finished += 1
            detail = self._say(failure) if failure is not None else ""
            event = PushProgress(device, stage, detail, self._finished, self._total, check)
        self._loop.call_soon_threadsafe(self._edits.tell, on_progress, event)

    async def drain(self) -> None:
        """Wait for the chat edit running and the one waiting, so none outlives the push."""
        await self._edits.drain()
