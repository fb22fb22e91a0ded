"""The devices part of the doctor: every device in parallel (a bounded pool), each a TCP connect
first, then a login, privileged mode and one read (its running config, as a change's preview
reads it) on the devices that answered. One finding per device, with the fix for what failed."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from nornir.core.task import AggregatedResult

from bot import messages
from bot.check.findings import Finding, fail, ok
from bot.settings import Settings, secret_value
from bot.views.failure import failure_text
from workflow.devices.cli_errors import dialect
from workflow.devices.failure import FailureKind
from workflow.devices.reachability import probe
from workflow.devices.results import device_result
from workflow.devices.runner import Credentials, Timeouts, build_nornir
from workflow.devices.tasks import DeviceResult, read_config
from workflow.model import Device

# a doctor waits less than a change does: a device slower than this is worth a line anyway
CONNECT_SECONDS = 10.0
READ_SECONDS = 20.0


def _where(device: Device) -> str:
    return f"{device.host}:{device.port} ({device.platform})"


async def unreachable(devices: Sequence[Device], settings: Settings) -> dict[str, str]:
    """Device name -> why its address does not take a connection (only those that do not)."""
    seconds = min(settings.connect_timeout_seconds, CONNECT_SECONDS)
    found = await probe(devices, seconds=seconds)
    return {name: why for name, why in found.items() if why is not None}


def down_finding(device: Device, why: str) -> Finding:
    said = messages.DEVICE_DOWN.format(where=_where(device), why=why)
    return fail(f"device {device.name}", said, messages.DEVICE_DOWN_FIX)


async def device_findings(devices: Sequence[Device], settings: Settings) -> list[Finding]:
    down = await unreachable(devices, settings)
    answering = [device for device in devices if device.name not in down]
    results = await asyncio.to_thread(_read_all, answering, settings) if answering else {}
    findings = []
    for device in devices:
        if device.name in down:
            findings.append(down_finding(device, down[device.name]))
        else:
            findings.append(_read_finding(device, results[device.name]))
    return findings


def _read_all(devices: list[Device], settings: Settings) -> dict[str, DeviceResult]:
    credentials = Credentials(
        settings.device_username,
        secret_value(settings.device_password),
        secret_value(settings.device_secret),
    )
    timeouts = Timeouts(
        connect=min(settings.connect_timeout_seconds, CONNECT_SECONDS),
        read=min(settings.read_timeout_seconds, READ_SECONDS),
    )
    nornir = build_nornir(devices, credentials, timeouts, settings.device_sessions)
    aggregated: AggregatedResult = nornir.run(task=read_config, timeouts=timeouts)
    return {name: device_result(multi[0].result) for name, multi in aggregated.items()}


def _read_finding(device: Device, result: DeviceResult) -> Finding:
    area = f"device {device.name}"
    if result.ok:
        return ok(area, messages.DEVICE_OK.format(where=_where(device), size=len(result.text)))
    if result.failure is None:  # not a result of read_config: device_result always says why
        return fail(area, "?", messages.DEVICE_FIX_OTHER)
    fix = device_fix(result.failure["kind"], device.platform)
    return fail(area, failure_text(result.failure), fix)


def device_fix(kind: FailureKind, platform: str) -> str:
    """What to do about a device's failure of `kind`: the fix of its platform's CLI, if it has
    its own (Junos has no `enable`: a refused read there is no secret's fault)."""
    fix = messages.DEVICE_FIXES_BY_DIALECT.get((kind, dialect(platform)))
    return (fix or messages.DEVICE_FIXES.get(kind, messages.DEVICE_FIX_OTHER)).format(
        platform=platform
    )
