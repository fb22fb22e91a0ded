"""Why a device failed, as a typed value bot/views/failure.py words with bot/messages/devices.py.

The tasks and the gateway say what happened with these fields; they never build the sentence a
person reads. The gateway is handed the bot's wording (`SayFailure`) for the texts it returns.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, TypedDict, get_args

__all__ = ["DeviceFailure", "FailureKind"]

# rejected: a pushed line was refused (`cause`; the lines before it took);
# exit_failed: the session did not leave configuration mode after the lines (`cause`: what the
# device answered `end` with);
# cli_refused: a read got a CLI error (`cause`: CliRefused's own line, the device's reply);
# not_privileged: `enable` did not bring the privileged prompt (`cause`: likewise);
# refused, no_login, timeout, unreachable, dropped: the session to `where` (host:port) failed
# (`cause`, `error_type`); setup: logged in to `where`, the session's set-up failed at the line
# `cause` ("" while finding the prompt; `error_type`), the device last saying `lines`;
# missing: `lines` not in the running config after the push;
# fault: any other error (`error_type`: `cause`); crashed: the task died outside its own care
# (`cause`: the trace's end); backup: the "before" backup could not be stored (`cause`);
# drifted: the device (`where`) changed since the preview; unknown: not in the inventory;
# locked: the device (`where`) is being changed by another change (`cause`: its id).
FailureKind = Literal[
    "rejected",
    "exit_failed",
    "cli_refused",
    "not_privileged",
    "refused",
    "no_login",
    "timeout",
    "unreachable",
    "dropped",
    "setup",
    "missing",
    "fault",
    "crashed",
    "backup",
    "drifted",
    "unknown",
    "locked",
]
FAILURE_KINDS: tuple[FailureKind, ...] = get_args(FailureKind)


class DeviceFailure(TypedDict):
    kind: FailureKind
    where: str  # host:port of the session, or the device's name
    cause: str  # the first line of the error ("" when none)
    error_type: str  # the error's class name ("" when none)
    lines: list[str]  # missing: the intended lines not in the config


SayFailure = Callable[[DeviceFailure], str]


def failure(
    kind: FailureKind,
    where: str = "",
    cause: str = "",
    error_type: str = "",
    lines: list[str] | None = None,
) -> DeviceFailure:
    """A DeviceFailure with the fields `kind` does not use left empty."""
    return DeviceFailure(
        kind=kind, where=where, cause=cause, error_type=error_type, lines=list(lines or [])
    )
