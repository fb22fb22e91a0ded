"""Nornir tasks run per device on the worker threads. They never raise: a failure is an Outcome.

A push is: read the running config, store it as the "before" backup (nothing is pushed without
one), send the lines with netmiko_send_config, read the running config again, store it as
"after", and check that every intended line is there.
"""

from __future__ import annotations

import logging
import socket
from dataclasses import dataclass

from netmiko.exceptions import (
    ConfigInvalidException,
    NetmikoAuthenticationException,
    NetmikoTimeoutException,
    ReadTimeout,
)
from nornir.core.exceptions import NornirSubTaskError
from nornir.core.task import Result, Task
from nornir_netmiko.connections import CONNECTION_NAME
from nornir_netmiko.tasks import netmiko_send_command, netmiko_send_config

from workflow.devices.diffing import missing_lines
from workflow.devices.runner import ERROR_PATTERN, Credentials, LoopBridge, Timeouts
from workflow.model import platform_family
from workflow.ports import BackupStore

log = logging.getLogger(__name__)

SHOW_CONFIG = {"juniper_junos": "show configuration"}
DEFAULT_SHOW_CONFIG = "show running-config"


@dataclass(frozen=True)
class Outcome:
    """What happened on one device; `text` is its CLI output or the config read."""

    ok: bool
    text: str = ""
    error: str = ""


@dataclass(frozen=True)
class PushJob:
    change_id: str
    plan: dict[str, list[str]]
    bridge: LoopBridge
    backups: BackupStore
    credentials: Credentials
    timeouts: Timeouts


def read_config(task: Task, credentials: Credentials, timeouts: Timeouts) -> Result:
    """Nornir task: the device's running config as an Outcome."""
    try:
        probe_console(task, timeouts.connect)
        outcome = Outcome(True, _show_config(task, timeouts))
    except Exception as exc:
        outcome = Outcome(False, error=credentials.scrub(describe(exc, task)))
    finally:
        _close(task)
    return Result(host=task.host, result=outcome, failed=not outcome.ok)


def push_config(task: Task, job: PushJob) -> Result:
    """Nornir task: back up, push, verify one device, reporting progress as it goes."""
    name = task.host.name
    job.bridge.progress(name, "started")
    try:
        outcome = _push(task, job)
    except Exception as exc:
        outcome = Outcome(False, error=describe(exc, task))
    finally:
        _close(task)
    outcome = Outcome(
        outcome.ok, job.credentials.scrub(outcome.text), job.credentials.scrub(outcome.error)
    )
    job.bridge.progress(name, "done" if outcome.ok else "failed", outcome.error)
    return Result(host=task.host, result=outcome, failed=not outcome.ok)


def _push(task: Task, job: PushJob) -> Outcome:
    lines = job.plan[task.host.name]
    probe_console(task, job.timeouts.connect)
    _save(task, job, "before", _show_config(task, job.timeouts))
    try:
        output = task.run(
            task=netmiko_send_config,
            config_commands=lines,
            error_pattern=ERROR_PATTERN,
            read_timeout=job.timeouts.read,
        ).result
    except NornirSubTaskError as exc:
        reason = describe(exc, task)
        if isinstance(_cause(exc), ConfigInvalidException):
            # the lines before the rejected one did take: keep the config for rollback
            _capture_after_failure(task, job)
            reason += " (lines before it were applied; roll back to undo them)"
        return Outcome(False, error=reason)
    after = _show_config(task, job.timeouts)
    _save(task, job, "after", after)
    missing = missing_lines(after, lines)
    if missing:
        return Outcome(
            False, output, "not in the running config after the push: " + "; ".join(missing)
        )
    return Outcome(True, output)


def probe_console(task: Task, timeout: float) -> None:
    """Fail fast when a telnet console accepts but never answers (a hung or booting node).

    netmiko's telnet login polls for about 12 s whatever its timeouts say; a CR on a fresh
    connection must bring back at least a prompt within the connect timeout.
    """
    if not (task.host.platform or "").endswith("_telnet"):
        return
    address = (task.host.hostname or "", task.host.port or 23)
    with socket.create_connection(address, timeout=timeout) as sock:
        sock.sendall(b"\r\n")
        try:
            if not sock.recv(1):
                raise EOFError("the console closed the connection")
        except TimeoutError:
            raise TimeoutError(f"the console said nothing within {timeout:g} s") from None


def _show_config(task: Task, timeouts: Timeouts) -> str:
    family = platform_family(task.host.platform or "")
    command = SHOW_CONFIG.get(family, DEFAULT_SHOW_CONFIG)
    result = task.run(task=netmiko_send_command, command_string=command, read_timeout=timeouts.read)
    return str(result.result)


def _save(task: Task, job: PushJob, stage: str, config: str) -> None:
    job.bridge.call(
        lambda: job.backups.save_config(job.change_id, task.host.name, stage, config),
        timeout=job.timeouts.read,
    )


def _capture_after_failure(task: Task, job: PushJob) -> None:
    try:
        task.host.get_connection(CONNECTION_NAME, task.nornir.config).exit_config_mode()
        _save(task, job, "after", _show_config(task, job.timeouts))
    except Exception as exc:  # the device already failed; this is only a better rollback base
        log.warning("%s: could not read the config after a rejected line: %s", task.host, exc)


def _close(task: Task) -> None:
    try:
        task.host.close_connections()
    except Exception as exc:  # a dropped session cannot be closed cleanly; nothing is left open
        log.debug("%s: closing the session failed: %s", task.host, exc)


def _cause(exc: BaseException) -> BaseException:
    """The device error behind a failed Nornir subtask."""
    if isinstance(exc, NornirSubTaskError):
        inner = next((r.exception for r in exc.result if r.exception), None)
        if inner is not None:
            return _cause(inner)
    return exc


def describe(exc: BaseException, task: Task) -> str:
    """One line saying what went wrong on the device, for the chat."""
    cause = _cause(exc)
    where = f"{task.host.hostname}:{task.host.port}"
    lines = [line.strip() for line in str(cause).splitlines() if line.strip()]
    first = lines[0] if lines else type(cause).__name__
    if isinstance(cause, ConfigInvalidException):
        return f"the device rejected a line: {first}"
    if isinstance(cause, ConnectionRefusedError):
        return f"connection refused by {where}"
    if isinstance(cause, NetmikoAuthenticationException):
        return f"no login or prompt from {where} ({first})"
    if isinstance(cause, ReadTimeout | socket.timeout | TimeoutError):
        return f"no answer from {where} in time ({first})"
    if isinstance(cause, NetmikoTimeoutException):
        return f"cannot connect to {where} ({first})"
    if isinstance(cause, EOFError | ConnectionError | OSError):
        return f"session to {where} dropped ({type(cause).__name__}: {first})"
    return f"{type(cause).__name__}: {first}"
