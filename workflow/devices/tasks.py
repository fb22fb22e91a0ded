"""Nornir tasks run per device on the worker threads. They never raise: a failure is a DeviceResult.

A push has two phases on the same sessions: `open_for_push` connects and reads the running
config; the gateway stores those as "before" backups; `push_config` sends the lines with
netmiko_send_config, reads the running config again and checks that every intended line is
there. Backups are written by the gateway on the event loop, between and after the phases.
"""

from __future__ import annotations

import logging
import re
import socket
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from netmiko.exceptions import (
    ConfigInvalidException,
    NetmikoAuthenticationException,
    NetmikoTimeoutException,
    ReadTimeout,
)
from nornir.core import Nornir
from nornir.core.exceptions import NornirSubTaskError
from nornir.core.inventory import Host
from nornir.core.task import Result, Task
from nornir_netmiko.connections import CONNECTION_NAME
from nornir_netmiko.tasks import netmiko_send_config

from workflow.devices.cli_errors import config_error_pattern, dialect, error_reply
from workflow.devices.diffing import missing_lines
from workflow.devices.failure import DeviceFailure, FailureKind, failure
from workflow.devices.interface_state import StateRead, state_command
from workflow.devices.prompts import (
    PROMPT_CHARS,
    CliRefused,
    EnableRefused,
    forget_prompt,
    privileged_prompt,
    prompt_after_push,
)
from workflow.devices.runner import LoopBridge, Timeouts, host_credentials
from workflow.devices.session_setup import SessionSetupFailed
from workflow.devices.sessions import connect
from workflow.devices.waiting import wait_readable
from workflow.postcheck_outcome import DeviceChecks

__all__ = ["DeviceResult", "read_config"]

log = logging.getLogger(__name__)

# the configuration read by CLI dialect (cli_errors.py): backups, drift, facts, the doctor
SHOW_CONFIG = {"junos": "show configuration", "vrp": "display current-configuration"}
DEFAULT_SHOW_CONFIG = "show running-config"
# An empty answer waits this long for more: a line typed while an FRR console's vtysh was still
# between lines is echoed by the terminal at once, then vtysh shows its prompt, echoes the line
# and answers; a read that ended at that prompt would be empty (a loaded host, seen in CI).
LATE_SECONDS = 0.2


@dataclass(frozen=True)
class DeviceResult:
    """What happened on one device; `text` is its CLI output or the config read, `failure` why
    it failed (bot/views/failure.py words it)."""

    ok: bool
    text: str = ""
    failure: DeviceFailure | None = None
    config_after: str | None = None  # the running config after a push, for the "after" backup
    check: DeviceChecks | None = None  # the post-checks' outcome (bot/views/postcheck.py words it)
    state: StateRead | None = None  # the interfaces' state, read with the config for facts
    unread: DeviceFailure | None = None  # a failed push whose read back failed too: why


@dataclass(frozen=True)
class ReadJob:
    commands: dict[str, str]  # device -> the allow-listed read to send
    timeouts: Timeouts


@dataclass(frozen=True)
class PushJob:
    plan: dict[str, list[str]]
    bridge: LoopBridge
    timeouts: Timeouts
    previewed: dict[str, str] = field(default_factory=dict)  # the config each preview read
    hold: bool = False  # sessions stay open after a push that succeeded (post-checks follow)


def read_config(task: Task, timeouts: Timeouts) -> Result:
    """Nornir task: the device's running config as a DeviceResult; the session is closed."""
    try:
        return _read(task, timeouts)
    finally:
        close_task(task)


def read_facts(task: Task, timeouts: Timeouts) -> Result:
    """Nornir task: the running config, then on the same session the interfaces' state (as
    `state`); the session is closed. A state that cannot be read is said in `state`: the
    config read still counts."""
    platform = task.host.platform or ""
    try:
        result = _read(task, timeouts)
        if result.failed:
            return result
        state = _read_state(task, state_command(platform), timeouts)
        return Result(host=task.host, result=replace(result.result, state=state))
    finally:
        close_task(task)


def _read_state(task: Task, command: str | None, timeouts: Timeouts) -> StateRead:
    if command is None:
        return StateRead(None, problem="labbot knows no read of this platform's interfaces")
    scrub = host_credentials(task.host).scrub
    try:
        return StateRead(command, output=scrub(read_privileged(task, command, timeouts)))
    except Exception as exc:
        return StateRead(command, problem=scrub(describe(exc, task)["cause"]))


def read_command(task: Task, job: ReadJob) -> Result:
    """Nornir task: the output of the device's read (privileged) as a DeviceResult; the session
    is closed. A CLI error reply is the device's failure."""
    command = job.commands[task.host.name]
    try:
        read = _read(task, job.timeouts, lambda: read_privileged(task, command, job.timeouts))
        scrub = host_credentials(task.host).scrub  # shown in chat: the login kept out
        shown = replace(read.result, text=scrub(read.result.text))
        return Result(host=task.host, result=shown, failed=read.failed)
    finally:
        close_task(task)


def open_for_push(task: Task, job: PushJob) -> Result:
    """Push phase 1: connect and read the running config, keeping the session open.

    The gateway stores every "before" backup between the phases, so nothing is pushed
    anywhere without one, and the writes happen while no worker thread competes for the GIL.
    """
    job.bridge.progress(task.host.name, "started")
    result = _read(task, job.timeouts)
    if result.failed:
        close_task(task)
        job.bridge.progress(task.host.name, "failed", result.result.failure)
    return result


def push_config(task: Task, job: PushJob) -> Result:
    """Push phase 2: send the lines, read the config again, verify; the session is closed
    unless the job holds it (the gateway then closes or hands it on)."""
    return run_reported(task, job.bridge, lambda: _push(task, job), close=not job.hold)


def run_reported(
    task: Task,
    bridge: LoopBridge,
    work: Callable[[], DeviceResult],
    close: bool = True,
) -> Result:
    """Run a device's `work` to its DeviceResult (a fault is one line), close the session (unless
    `close` is False), keep the login out of the text, and report the device done or failed
    (with its post-checks' outcome, if any)."""
    try:
        result = work()
    except Exception as exc:
        result = DeviceResult(False, failure=describe(exc, task))
    finally:
        if close:
            close_task(task)
    scrub = host_credentials(task.host).scrub
    result = replace(result, text=scrub(result.text), failure=scrubbed(result.failure, scrub))
    stage: Literal["done", "failed"] = "done" if result.ok else "failed"
    bridge.progress(task.host.name, stage, result.failure, check=result.check)
    return Result(host=task.host, result=result, failed=not result.ok)


def _read(task: Task, timeouts: Timeouts, read: Callable[[], str] | None = None) -> Result:
    """Read the running config (or what `read` returns) as a DeviceResult: the text exactly as
    the device printed it (backups, drift checks and rollbacks need its real secrets; views
    mask them), a failure's words with the login scrubbed."""
    scrub = host_credentials(task.host).scrub
    try:
        result = DeviceResult(True, read() if read else _show_config(task, timeouts))
    except Exception as exc:
        result = DeviceResult(False, failure=scrubbed(describe(exc, task), scrub))
    return Result(host=task.host, result=result, failed=not result.ok)


def _push(task: Task, job: PushJob) -> DeviceResult:
    lines = job.plan[task.host.name]
    connection = connect(task)
    try:
        output = task.run(
            task=netmiko_send_config,
            config_commands=lines,
            enable=False,  # the session is privileged: phase 1 read the config on it
            error_pattern=config_error_pattern(task.host.platform or ""),
            read_timeout=job.timeouts.read,
        ).result
        prompt_after_push(connection, output)
        after = _show_config(task, job.timeouts)
    except Exception as exc:  # in configuration mode, or past it: the device says what took
        forget_prompt(connection)
        return _read_back(task, job, describe(exc, task))
    missing = missing_lines(after, lines, task.host.platform or "")
    if missing:
        gone = failure("missing", lines=missing)
        return DeviceResult(False, output, gone, config_after=after)
    return DeviceResult(True, output, config_after=after)


def _read_back(task: Task, job: PushJob, reason: DeviceFailure) -> DeviceResult:
    """The push failed after the session entered configuration mode (a rejected line, a
    timeout, a dropped session, an exit that failed): the running config read again, on the
    session if it still answers, else on a fresh one, is what landed (the gateway compares it
    with the "before" backup). A read back that fails too is said as `unread`."""
    try:
        after = _config_on_session(task, job.timeouts)
    except Exception as exc:
        log.info("%s: the session after the failed push is unusable: %s", task.host, exc)
        close_task(task)
        try:
            after = _show_config(task, job.timeouts)  # connect() opens a fresh session
        except Exception as again:
            unread = scrubbed(describe(again, task), host_credentials(task.host).scrub)
            return DeviceResult(False, failure=reason, unread=unread)
    return DeviceResult(False, failure=reason, config_after=after)


def _config_on_session(task: Task, timeouts: Timeouts) -> str:
    connection = task.host.get_connection(CONNECTION_NAME, task.nornir.config)
    connection.exit_config_mode()
    return _show_config(task, timeouts)


def _show_config(task: Task, timeouts: Timeouts) -> str:
    command = SHOW_CONFIG.get(dialect(task.host.platform or ""), DEFAULT_SHOW_CONFIG)
    return read_privileged(task, command, timeouts)


def read_privileged(task: Task, command: str, timeouts: Timeouts) -> str:
    """`command`'s output, read in privileged mode (`enable` first when the session is at `>`).

    Raises CliRefused when `enable` fails or the device answers with a CLI error: such text is
    the device's refusal, never configuration or state.
    """
    connection = connect(task)
    output = _read_to_prompt(connection, command, privileged_prompt(connection), timeouts.read)
    reply = error_reply(task.host.platform or "", output)
    if reply is not None:
        raise CliRefused(command, reply)
    return output


def _read_to_prompt(connection: Any, command: str, prompt: str, seconds: float) -> str:
    """What netmiko's send_command reads (after the command's echo, up to the prompt, neither
    kept), returning when the prompt shows: send_command sleeps 25 ms after the echo whatever
    came with it (two reads a push, many a second in post-checks). Anything before the echo (a
    stray prompt) is dropped, as send_command does."""
    connection.write_channel(connection.normalize_cmd(command))
    connection.read_until_pattern(pattern=re.escape(command.strip()), read_timeout=seconds)
    output = _answer(connection, prompt, seconds)
    if not output.strip() and _more_comes(connection):
        output = _answer(connection, prompt, seconds)  # see LATE_SECONDS
    return without_echo(output, command)


def _answer(connection: Any, prompt: str, seconds: float) -> str:
    answer = connection.read_until_pattern(pattern=prompt, read_timeout=seconds)
    return str(connection.strip_prompt(connection.normalize_linefeeds(answer))).lstrip("\n")


def _more_comes(connection: Any) -> bool:
    """Whether the device says more within LATE_SECONDS (kept for the next read)."""
    wait_readable(connection.remote_conn, LATE_SECONDS)
    late = str(connection.read_channel())
    connection._read_buffer += late
    return bool(late)


def without_echo(output: str, command: str) -> str:
    """`output` without a first line that echoes `command` (after a prompt or alone).

    The echo read up to is sometimes not the last: on a loaded host an FRR console was seen
    answering `R3# show running-config` again above the output, which then differed from the
    same config read a moment later (a push refused the router as "changed since the preview").
    """
    echo = re.compile(rf"(?:\S*{PROMPT_CHARS}\s*)?{re.escape(command.strip())}")
    first, _, rest = output.partition("\n")
    return rest if echo.fullmatch(first.strip()) else output


def close_task(task: Task) -> None:
    _close_host(task.host)


def _close_host(host: Host) -> None:
    try:
        host.close_connections()
    except Exception as exc:  # a dropped session cannot be closed cleanly; nothing is left open
        log.debug("%s: closing the session failed: %s", host, exc)


def close_sessions(nornir: Nornir) -> None:
    """Close sessions a run left open (a push stopped between its phases)."""
    for host in nornir.inventory.hosts.values():
        if host.connections:
            _close_host(host)


def _cause(exc: BaseException) -> BaseException:
    """The device error behind a failed Nornir subtask."""
    if isinstance(exc, NornirSubTaskError):
        inner = next((r.exception for r in exc.result if r.exception), None)
        if inner is not None:
            return _cause(inner)
    return exc


def describe(exc: BaseException, task: Task) -> DeviceFailure:
    """What went wrong on the device: the kind of error, where, and its first line."""
    cause = _cause(exc)
    where = f"{task.host.hostname}:{task.host.port}"
    if isinstance(cause, SessionSetupFailed):
        said = [cause.said] if cause.said else []
        return failure("setup", where, cause.step, cause.error_type, said)
    lines = [line.strip() for line in str(cause).splitlines() if line.strip()]
    first = lines[0] if lines else type(cause).__name__
    return failure(_kind(cause), where, first, type(cause).__name__)


def _kind(cause: BaseException) -> FailureKind:
    if isinstance(cause, ConfigInvalidException):
        return "rejected"
    if isinstance(cause, ValueError) and "exit configuration mode" in str(cause):
        return "exit_failed"  # netmiko's send_config_set: the device stayed in it
    if isinstance(cause, EnableRefused):
        return "not_privileged"
    if isinstance(cause, CliRefused):
        return "cli_refused"
    if isinstance(cause, ConnectionRefusedError):
        return "refused"
    if isinstance(cause, NetmikoAuthenticationException):
        return "no_login"
    if isinstance(cause, ReadTimeout | socket.timeout | TimeoutError):
        return "timeout"
    if isinstance(cause, NetmikoTimeoutException):
        return "unreachable"
    if isinstance(cause, EOFError | ConnectionError | OSError):
        return "dropped"
    return "fault"


def scrubbed(reason: DeviceFailure | None, scrub: Callable[[str], str]) -> DeviceFailure | None:
    """`reason` with the login kept out of the text it carries."""
    if reason is None:
        return None
    lines = [scrub(line) for line in reason["lines"]]
    return failure(
        reason["kind"], reason["where"], scrub(reason["cause"]), reason["error_type"], lines
    )
