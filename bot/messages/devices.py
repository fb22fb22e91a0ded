"""Why a device failed (workflow.devices.failure), said in results, progress and facts."""

from __future__ import annotations

from workflow.devices.failure import FailureKind

DEVICE_FAILURE: dict[FailureKind, str] = {
    "rejected": (
        "the device rejected a line: {cause} (lines before it were applied; roll back to undo them)"
    ),
    "exit_failed": "the session failed at exit: {cause}",
    "cli_refused": "{cause}",
    "refused": "connection refused by {where}",
    "no_login": "no login or prompt from {where} ({cause})",
    "timeout": "no answer from {where} in time ({cause})",
    "unreachable": "cannot connect to {where} ({cause})",
    "dropped": "session to {where} dropped ({error_type}: {cause})",
    "missing": "not in the running config after the push: {lines}",
    "fault": "{error_type}: {cause}",
    "crashed": "{cause}",
    "backup": "could not store the backup: {cause}",
    "drifted": "{where} changed since the preview; not pushed",
    "unknown": "{where} is not in the inventory",
    "locked": "{where} is locked by change {cause}",
}
# What a failed push left on a device, read back from it (workflow.model.Landed), before why
# it failed (`then`: DEVICE_FAILURE's words).
LANDED = {
    "none": "nothing landed on {device} (read back): {then}",
    "some": "landed {count} of {total} lines on {device}: {lines}; {then}",
    "all": "landed {count} of {total} lines on {device}: {lines}; {then}",
    "unknown": (
        "what landed on {device} is unknown: the read back failed ({unread}); {then}. "
        "Read it there (`show running-config on {device}`)"
    ),
}
PUSHED_VERIFIED = "{count} line(s) pushed and verified"  # a device's audit row after its push
