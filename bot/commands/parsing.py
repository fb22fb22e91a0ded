"""A command as parsed (bot.commands.registry tells a command from a change request), and the
`audit` filters."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from bot import messages

__all__ = ["Command", "CommandError"]

ASK = "ask"  # the command a known question about the lab becomes ("neighbours on R1")
DECIDE = "decide"  # `approve|modify|cancel CHANGE_ID [: TEXT]`, args = (choice, id, text)
DEVICE = "device"  # a device command that is no read (`do reload`): refused, args = (why,)


@dataclass(frozen=True)
class Command:
    name: str
    args: tuple[str, ...] = ()


@dataclass(frozen=True)
class AuditFilter:
    change_id: str | None = None
    user: str | None = None
    device: str | None = None
    since: datetime | None = None
    until: datetime | None = None


class CommandError(ValueError):
    """Bad command arguments; the message tells the user the right form."""


def parse_time(value: str, option: str) -> datetime:
    """ISO date or datetime, taken as UTC when it has no zone."""
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise CommandError(messages.NOT_A_DATE.format(option=option, value=value)) from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


_AUDIT_KEYS = {"change": "change_id", "user": "user", "device": "device"}


def parse_audit_args(args: tuple[str, ...]) -> AuditFilter:
    """`change=X user=U device=R1 since=2026-11-01 until=…` (also `--change X` forms)."""
    values: dict[str, object] = {}
    pending_key: str | None = None
    for arg in args:
        if pending_key is not None:
            key, value = pending_key, arg
            pending_key = None
        elif arg.startswith("--") and "=" not in arg:
            pending_key = arg[2:]
            continue
        else:
            key, sep, value = arg.lstrip("-").partition("=")
            if not sep:
                raise CommandError(messages.AUDIT_NOT_KEY_VALUE.format(arg=arg))
        values.update(_audit_pair(key, value))
    if pending_key is not None:
        raise CommandError(messages.AUDIT_NEEDS_VALUE.format(key=pending_key))
    return AuditFilter(**values)  # type: ignore[arg-type]


def _audit_pair(key: str, value: str) -> dict[str, object]:
    if key in _AUDIT_KEYS:
        return {_AUDIT_KEYS[key]: value}
    if key in ("since", "until"):
        return {key: parse_time(value, key)}
    raise CommandError(messages.AUDIT_UNKNOWN_FILTER.format(key=key))
