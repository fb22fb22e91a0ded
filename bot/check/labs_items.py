"""The labs part of the doctor: the labs file (LABBOT_LABS) reads, its pods are found, and each
lab's inventory and devices are checked as one lab's are (each finding named by its lab)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace

from base.errors import LabbotError
from bot import messages
from bot.check.findings import Finding, fail, ok
from bot.labs.lab_settings import configured_labs, settings_for
from bot.labs.spec import Lab
from bot.settings import Settings

LabCheck = Callable[[Settings], Awaitable[list[Finding]]]


async def labs_findings(
    settings: Settings, check_lab: LabCheck, only: str | None = None
) -> list[Finding]:
    """The labs file, then `check_lab` on each lab's settings (only lab `only` when named)."""
    try:
        labs = await configured_labs(settings)
    except LabbotError as exc:
        return [fail("labs", str(exc), messages.LABS_FIX)]
    if only is not None:
        named = tuple(lab for lab in labs if lab.name == only)
        if not named:
            names = ", ".join(lab.name for lab in labs) or "none"
            return [fail("labs", messages.LABS_NO_LAB_NAMED.format(name=only, names=names))]
        labs = named
    findings = [ok("labs", _listed(settings, labs))]
    for lab in labs:
        findings += [_of(lab, f) for f in await check_lab(settings_for(settings, lab))]
    return findings


def _listed(settings: Settings, labs: tuple[Lab, ...]) -> str:
    names = ", ".join(lab.name for lab in labs) or "none"
    return messages.LABS_OK.format(path=settings.labs, count=len(labs), names=names)


def _of(lab: Lab, finding: Finding) -> Finding:
    return replace(finding, area=f"{lab.name}: {finding.area}")
