"""Building each device's preview for the params gate: its validated parameters, rendered lines,
diff against its running configuration and deny-list hits (pure functions over JSON data).

Parameters must validate per device (workflow/templates/validation.py) and render; lines outside the
template's sections (workflow/safety/sections.py) are errors, blocked before any preview; deny-list
hits (workflow/safety/deny.py) are shown at the params gate (`blocked`) and refused again at the
push. A template reading `facts` renders each device with its own; the review shows them, so
its hash covers them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NotRequired, TypedDict

from base.errors import TemplateError
from workflow.devices.diffing import preview_diff
from workflow.model import TemplateProposal, Topology
from workflow.phases.landing import Landing
from workflow.safety.allowances import allowed_by
from workflow.safety.deny import BlockedLine, DenyList, shown
from workflow.safety.sections import declared_sections, outside_errors
from workflow.templates.facts import TemplateFacts, lab_facts
from workflow.templates.interface_names import missing_interfaces
from workflow.templates.rendering import reads_facts, render
from workflow.templates.validation import facts_errors, validate_params

__all__ = ["DevicePreview", "preview_devices", "with_changes"]


class DevicePreview(TypedDict):
    platform: str
    params: dict[str, Any]
    lines: list[str]
    diff: str
    blocked: list[BlockedLine]
    allowed: NotRequired[list[BlockedLine]]  # deny-list hits the template allows (shown)
    facts: NotRequired[TemplateFacts]  # the `facts` rendered, when the template reads them
    state_unread: NotRequired[str]  # why its interfaces come from its configuration alone
    landing: NotRequired[
        Landing
    ]  # where the lines land on the device's twin (workflow.phases.landing)
    # interfaces the lines open that the device does not have -> the closest it has ("": none)
    missing_interfaces: NotRequired[dict[str, str]]
    # after a Modify: each parameter that differs from the preview before -> [before, now]
    changed: NotRequired[dict[str, list[Any]]]


def preview_devices(
    proposal: TemplateProposal,
    device_params: Mapping[str, Mapping[str, Any]],
    topology: Topology,
    deny_list: DenyList,
) -> tuple[dict[str, DevicePreview], list[str]]:
    """Each target's validated params, rendered lines, diff and deny-list hits; or the errors."""
    errors = [
        f"parameters for {name}, which is not a target ({', '.join(proposal['targets'])})"
        for name in sorted(set(device_params) - set(proposal["targets"]))
    ]
    previews: dict[str, DevicePreview] = {}
    lab = lab_facts(topology)
    reading = {family for family, source in proposal["templates"].items() if reads_facts(source)}
    for name in proposal["targets"]:
        if name not in device_params:
            errors.append(f"no parameters for {name}")
            continue
        reads = topology["devices"][name]["family"] in reading
        preview, device_errors = _preview_one(
            proposal, name, device_params[name], topology, lab.get(name) if reads else None
        )
        errors.extend(f"{name}: {e}" for e in device_errors)
        sections = declared_sections(proposal)
        if preview is not None and sections is not None:  # blocked before any preview
            family = topology["devices"][name]["family"]
            errors.extend(
                f"{name}: {e}" for e in outside_errors(preview["lines"], sections, family)
            )
        if preview is not None:
            facts = topology["devices"][name]
            verdict = deny_list.judge(
                preview["lines"], facts["family"], allowed_by(proposal), facts.get("management")
            )
            preview["blocked"] = [shown(v) for v in verdict.refused]
            if verdict.allowed:  # shown at the gate: what the template's allowances let pass
                preview["allowed"] = [shown(v) for v in verdict.allowed]
            previews[name] = preview
    if not errors and not any(p["lines"] for p in previews.values()):
        errors.append("the template renders no configuration line for any device")
    return previews, errors


def _preview_one(
    proposal: TemplateProposal,
    name: str,
    params: Mapping[str, Any],
    topology: Topology,
    view: TemplateFacts | None,
) -> tuple[DevicePreview | None, list[str]]:
    """`view`: the device's `facts` when its template reads them."""
    facts = topology["devices"][name]
    if view is not None and (unsafe := facts_errors(view, "facts")):
        return None, unsafe  # gather already refuses such devices: this is a safety net
    normalized, errors = validate_params(proposal["params_schema"], dict(params))
    if errors:
        return None, errors
    try:
        lines = render(proposal["templates"][facts["family"]], normalized, facts=view)
    except TemplateError as err:
        return None, [str(err)]
    diff = preview_diff(facts["running_config"], lines, facts["platform"])
    preview = DevicePreview(
        platform=facts["platform"], params=normalized, lines=lines, diff=diff, blocked=[]
    )
    if view is not None:
        preview["facts"] = view
    if "state_unread" in facts:
        preview["state_unread"] = facts["state_unread"]
    if missing := missing_interfaces(lines, facts):
        preview["missing_interfaces"] = missing
    return preview, []


def with_changes(
    before: Mapping[str, DevicePreview], previews: dict[str, DevicePreview]
) -> dict[str, DevicePreview]:
    """`previews`, each saying which parameters differ from the device's preview `before` (a
    Modify's effect, shown at the gate it reopens)."""
    for name, preview in previews.items():
        old = before.get(name)
        if old is None:
            continue
        keys = dict.fromkeys([*old["params"], *preview["params"]])
        changed = {
            key: [old["params"].get(key), preview["params"].get(key)]
            for key in keys
            if old["params"].get(key) != preview["params"].get(key)
        }
        if changed:
            preview["changed"] = changed
    return previews
