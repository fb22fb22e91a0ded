"""Where a change's lines land, as the gates show it: the params gate's notes (copies tried,
models, missing interfaces, changed parameters), and the rollback gate offered when a push left
lines outside the template's sections. Pure."""

from __future__ import annotations

from collections.abc import Mapping

from base.grammar import model_of
from base.masking import SecretMask
from bot import messages
from workflow.model import platform_family
from workflow.phases.previews import DevicePreview
from workflow.phases.reviews import RollbackReview

Section = tuple[str, str, str]  # (title, body, language)


def landing_note(devices: Mapping[str, DevicePreview]) -> str:
    """Which devices' lines were tried on a copy (all inside the sections: the gate is shown
    only then), which were not and why, and whether a copy refused some line."""
    landings = {name: d["landing"] for name, d in devices.items() if "landing" in d}
    if not landings:
        return ""
    checked = [name for name, landing in landings.items() if "skipped" not in landing]
    skipped = [
        messages.LANDING_SKIPPED_WHY[skip].format(device=name, platform=landing["twin"])
        for name, landing in landings.items()
        if (skip := landing.get("skipped"))
    ]
    note = messages.LANDING_CHECKED.format(checked=len(checked)) if checked else ""
    if skipped:
        note += messages.LANDING_NOT_CHECKED.format(devices=", ".join(skipped))
    refused = sum(len(landing["refused"]) for landing in landings.values())
    if refused:
        note += messages.LANDING_REFUSED_AT_GATE.format(count=refused)
    return note


def missing_interfaces_note(devices: Mapping[str, DevicePreview]) -> str:
    """A warning for each interface a device's lines open that the device does not have."""
    return "".join(
        messages.MISSING_INTERFACE.format(
            device=name,
            interface=interface,
            closest=messages.MISSING_CLOSEST.format(closest=closest) if closest else "",
        )
        for name, device in devices.items()
        for interface, closest in device.get("missing_interfaces", {}).items()
    )


def changed_note(devices: Mapping[str, DevicePreview], mask: SecretMask) -> str:
    """After a Modify: each parameter that differs from the preview before, masked."""
    changes = [
        messages.CHANGED_PARAM.format(
            device=name,
            param=key,
            before=_value(mask.param(key, before)),
            now=_value(mask.param(key, now)),
        )
        for name, device in devices.items()
        for key, (before, now) in device.get("changed", {}).items()
    ]
    return messages.CHANGED_SINCE.format(changes="; ".join(changes)) if changes else ""


def _value(value: object) -> str:
    """A parameter's value (masked already) in a sentence: a list's items by commas."""
    if value is None or value == []:
        return messages.CHANGED_NOTHING
    return ", ".join(map(str, value)) if isinstance(value, list) else str(value)


def models_note(devices: Mapping[str, DevicePreview]) -> str:
    """What judges where each platform's lines land (a mode grammar, a real twin, …)."""
    families = sorted({platform_family(device["platform"]) for device in devices.values()})
    models = [messages.LANDING_MODEL_OF.format(family=f, model=model_of(f)) for f in families]
    return messages.LANDING_MODEL.format(models="; ".join(models)) if models else ""


def landed_outside_gate(
    change_id: str, payload: RollbackReview, mask: SecretMask
) -> tuple[str, list[Section]]:
    """The rollback gate after a push left lines outside the sections: where they are now, and
    per device the lines that undo the change."""
    outside = payload.get("outside", {})
    text = messages.LANDED_OUTSIDE_GATE.format(change_id=change_id, devices=", ".join(outside))
    sections = [
        (
            messages.SECTION_LANDED_OUTSIDE.format(device=name),
            mask.config("\n".join(lines)),
            "text",
        )
        for name, lines in outside.items()
    ]
    for name, device in payload["devices"].items():
        lines = mask.config("\n".join(device["lines"]))
        sections.append((messages.SECTION_ROLLBACK_LINES.format(device=name), lines, "text"))
    return text, sections


def outside_text(outside: Mapping[str, list[str]], mask: SecretMask) -> str:
    """`R1: snmp-server community … RW; R2: …` (masked), for an ending."""
    return "; ".join(
        messages.OUTSIDE_ON.format(device=name, lines=mask.config(", ".join(lines)))
        for name, lines in outside.items()
    )
