"""Why a device failed (workflow.devices.failure), said in results, progress and facts."""

from __future__ import annotations

from workflow.devices.failure import FailureKind

DEVICE_FAILURE: dict[FailureKind, str] = {
    "rejected": (
        "the device rejected a line: {cause} (lines before it were applied; roll back to undo them)"
    ),
    "exit_failed": "the session failed at exit: {cause}",
    "cli_refused": "{cause}",
    "not_privileged": "{cause}",
    "refused": "connection refused by {where}",
    "no_login": "no login or prompt from {where} ({cause})",
    "timeout": "no answer from {where} in time ({cause})",
    "unreachable": "cannot connect to {where} ({cause})",
    "dropped": "session to {where} dropped ({error_type}: {cause})",
    "setup": (
        "logged in to {where}, but the session's set-up stopped at {step} ({error_type}); "
        "the device last said {said}"
    ),
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
SETUP_STEP = "`{command}`"  # the set-up line netmiko sent last
SETUP_FINDING_PROMPT = "finding its prompt"  # only an Enter sent: netmiko was finding the prompt
SETUP_SAID = "`{words}`"
SETUP_SAID_NOTHING = "nothing"
PUSHED_VERIFIED = "{count} line(s) pushed and verified"  # a device's audit row after its push
