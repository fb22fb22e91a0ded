"""`labbot check` runs every part of the doctor (the independent ones side by side) in a fixed
order of findings; `labbot serve` runs the inventory part before it listens, refusing a broken
inventory in one line and saying unreachable devices as warnings."""

from __future__ import annotations

import asyncio
import logging

from base.errors import ConfigError
from bot import messages
from bot.check.chat_items import matrix_findings, slack_findings
from bot.check.device_items import device_findings, down_finding, unreachable
from bot.check.findings import Finding, line
from bot.check.inventory_items import inventory_findings
from bot.check.labs_items import labs_findings
from bot.check.llm_item import llm_finding
from bot.check.settings_items import settings_findings
from bot.check.storage_items import storage_findings
from bot.labs.lab_option import refuse_lab_without_labs
from bot.labs.lab_settings import configured_labs, settings_for
from bot.settings import Settings

__all__ = ["before_serving", "run_checks"]

log = logging.getLogger(__name__)


async def _lab_findings(settings: Settings, only: str | None = None) -> list[Finding]:
    """The one lab of the settings, or each lab of the labs file (LABBOT_LABS); `only`: that
    lab of the file alone."""
    if settings.labs is not None:
        return await labs_findings(settings, _one_lab, only)
    return await _one_lab(settings)


async def _one_lab(settings: Settings) -> list[Finding]:
    devices, findings = await inventory_findings(settings)
    return findings + await device_findings(devices, settings)


async def run_checks(only: str | None = None) -> list[Finding]:
    """Everything, from the settings on; without settings that load, only what is wrong there.
    `only` (`labbot check --lab NAME`): of the labs, that lab of LABBOT_LABS alone; without a
    labs file it is refused in one line (ConfigError) before anything is looked at."""
    settings, findings = settings_findings()
    if settings is None:
        return findings
    if only is not None and settings.labs is None:
        refuse_lab_without_labs(settings, only)
    parts = await asyncio.gather(
        storage_findings(settings),
        slack_findings(settings),
        matrix_findings(settings),
        _llm_findings(settings),
        _lab_findings(settings, only),
    )
    return findings + [finding for part in parts for finding in part]


async def _llm_findings(settings: Settings) -> list[Finding]:
    return [await llm_finding(settings)]


async def before_serving(settings: Settings) -> None:
    """The inventory as `labbot check` sees it: a broken one stops `serve` (one line naming the
    file and line); a device that does not answer is a warning, not a refusal. With LABBOT_LABS,
    each lab's (a broken labs file stops `serve` too)."""
    if settings.labs is None:
        await _before_serving(settings)
        return
    for lab in await configured_labs(settings):
        await _before_serving(settings_for(settings, lab), f"{lab.name}: ")


async def _before_serving(settings: Settings, lab: str = "") -> None:
    devices, findings = await inventory_findings(settings)
    broken = [f for f in findings if f.status == "fail" and f.area == "inventory"]
    if broken:
        raise ConfigError(messages.SERVE_REFUSED.format(line=lab + line(broken[0])))
    for finding in findings:
        report = log.info if finding.status == "ok" else log.warning
        report(messages.SERVE_CHECKED.format(line=lab + line(finding)))
    down = await unreachable(devices, settings)
    for device in devices:
        if device.name in down:
            said = line(down_finding(device, down[device.name]))
            log.warning(messages.SERVE_CHECKED.format(line=lab + said))
