"""How a device's failure is said: the typed DeviceFailure (workflow/devices/failure.py) worded
with bot/messages/; the gateway is handed `failure_text` for the results it returns."""

from __future__ import annotations

from bot import messages
from workflow.devices.failure import DeviceFailure

__all__ = ["failure_text"]


def failure_text(failure: DeviceFailure) -> str:
    """One line saying what went wrong on the device."""
    fields: dict[str, object] = dict(failure)
    fields["lines"] = "; ".join(failure["lines"])
    if failure["kind"] == "setup":  # `cause` the line sent last, `lines` the device's last words
        command, said = failure["cause"], fields["lines"]
        step = messages.SETUP_STEP.format(command=command) if command else ""
        fields["step"] = step or messages.SETUP_FINDING_PROMPT
        words = messages.SETUP_SAID.format(words=said) if said else ""
        fields["said"] = words or messages.SETUP_SAID_NOTHING
    return messages.DEVICE_FAILURE[failure["kind"]].format(**fields)
