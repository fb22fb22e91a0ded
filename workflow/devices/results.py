"""What the gateway answers per device, from a task's `DeviceResult` (pure): its facts, its item
of the standard response, and what a failed push left on it, in the bot's wording of failures
(`SayFailure`)."""

from __future__ import annotations

import logging

from workflow.devices.facts import device_interfaces, management_interface
from workflow.devices.failure import SayFailure, failure
from workflow.devices.landed import landed_on, landed_unknown
from workflow.devices.tasks import DeviceResult
from workflow.model import Device, DeviceFacts, Landed, ResponseItem

__all__ = ["device_result"]

log = logging.getLogger(__name__)


def device_facts(device: Device, config: str, result: DeviceResult, say: SayFailure) -> DeviceFacts:
    """The device's facts from its configuration read (and its interfaces' state)."""
    facts = DeviceFacts(
        name=device.name,
        platform=device.platform,
        family=device.family,
        interfaces=[],
        running_config=config,
    )
    if result.failure is not None:
        facts["error"] = say(result.failure)
    if result.ok:
        interfaces, unread = device_interfaces(device.platform, config, result.state)
        facts["interfaces"] = interfaces
        if (management := management_interface(device.host, interfaces)) is not None:
            facts["management"] = management
        if unread is not None:
            log.warning("%s: interfaces from its configuration only: %s", device.name, unread)
            facts["state_unread"] = unread
    return facts


def response_item(name: str, result: DeviceResult, say: SayFailure) -> ResponseItem:
    if result.ok:
        item = ResponseItem(id=name, name=name, status="success", result=result.text)
    else:
        item = failed_item(name, say(result.failure) if result.failure else "")
        if result.text:
            item["result"] = result.text
    if result.check is not None:
        item["checks"] = result.check
    return item


def landed(
    device: Device, before: str, lines: list[str], result: DeviceResult, say: SayFailure
) -> Landed:
    """What a failed push left on `device`: its config read back against its "before"."""
    if result.config_after is None:
        unread = say(result.unread) if result.unread else ""
        return landed_unknown(lines, unread, device.platform)
    return landed_on(before, result.config_after, lines, device.platform)


def device_result(value: object) -> DeviceResult:
    """The task's DeviceResult; a task that died outside its own try (a Nornir fault) leaves a
    traceback string instead, said by its last line (`ValueError: …`), never the trace."""
    if isinstance(value, DeviceResult):
        return value
    lines = [line.strip() for line in str(value).splitlines() if line.strip()]
    return DeviceResult(False, failure=failure("crashed", cause=(lines or ["?"])[-1][-300:]))


def failed_item(name: str, reason: str) -> ResponseItem:
    return ResponseItem(id=name, name=name, status="failed", error=reason)
