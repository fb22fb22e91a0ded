"""How the post-checks' outcome is said: each device's typed outcome
(workflow/postcheck_outcome.py) worded with bot/messages/, in results, gates and progress."""

from __future__ import annotations

from bot import messages
from bot.views.landed import landed_text
from workflow.model import PushProgress, ResponseItem
from workflow.postcheck_outcome import DeviceChecks, Fact, Missing

__all__ = ["item_body"]


def checks_text(checks: DeviceChecks, device: str) -> str:
    """The device's outcome in a line, then (passed) one line per fact it shows."""
    missing = [_missing(m) for m in checks["missing"]]
    more = messages.MORE_MISSING.format(more=len(missing) - 1) if len(missing) > 1 else ""
    first = missing[0] + more if missing else ""
    said = messages.CHECKS_OUTCOME[checks["kind"]].format(
        seconds=checks["seconds"],
        missing="; ".join(missing),
        first=first,
        platform=checks["platform"],
        device=device,
        within=messages.CHECKS_WITHIN.format(within=checks["within"]) if "within" in checks else "",
    )
    if checks["kind"] != "passed":
        return said
    return "\n".join([said, *(_met(fact) for fact in checks["met"])])


def item_body(item: ResponseItem) -> str:
    """What the thread shows for one device of a result: its output and post-checks when it
    succeeded, else why it failed."""
    said = checks_text(item["checks"], item["name"]) if "checks" in item else ""
    if item["status"] == "success":
        return "\n".join(filter(None, [item.get("result", ""), said]))
    if "landed" in item:  # a push that failed: what it left on the device, read back
        return landed_text(item["landed"], item["name"], item.get("error", ""))
    return item.get("error") or said or messages.CHECKS_FAILED


def progress_detail(event: PushProgress) -> str:
    """What a device's progress row says: its post-checks' outcome so far, else the detail."""
    if event.check is None:
        return event.detail
    return checks_text(event.check, event.device).splitlines()[0]


def failures_text(failures: list[ResponseItem] | str) -> str:
    """`R3: …evidence… (after 30 s); R2: …`: the devices that failed their post-checks (a
    checkpoint from before typed outcomes holds this text already)."""
    if isinstance(failures, str):
        return failures
    return "; ".join(_failed_on(item) for item in failures)


def _failed_on(item: ResponseItem) -> str:
    """`R2: …evidence… (after 30 s)`; a device not checked to the deadline says why."""
    checks = item.get("checks")
    if checks is None or checks["kind"] != "failed":
        return messages.DEVICE_FAILED.format(device=item["name"], error=item_body(item))
    missing = "; ".join(_missing(m) for m in checks["missing"])
    return messages.CHECKS_FAILED_ON.format(
        device=item["name"], missing=missing, seconds=checks["seconds"]
    )


def _label(fact: Fact) -> str:
    of_peer = messages.PEER_NOTE.format(peer=fact["peer"]) if fact["peer"] else ""
    return messages.CHECK_LABEL[fact["check"]].format(**fact, of_peer=of_peer)


def _met(fact: Fact) -> str:
    by = messages.BY_PROTOCOL.format(protocol=fact["protocol"]) if fact["protocol"] else ""
    return messages.CHECK_MET[fact["check"]].format(label=_label(fact), by=by)


def _missing(missing: Missing) -> str:
    fact = missing["fact"]
    return messages.CHECK_MISSING[missing["evidence"]].format(
        label=_label(fact),
        state=missing["seen"][0] if missing["seen"] else messages.STATE_ABSENT,
        seen=", ".join(missing["seen"]),
        protocol=fact["protocol"],
    )
