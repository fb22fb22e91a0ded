"""What the graph checks before a human sees a proposal (pure functions over JSON data).

A template must validate, cover the targets' platform families and render its example without
a blocked command. Parameters must validate per device, render, and are diffed against each
device's running config; deny-list hits in the rendered lines are shown at the params gate
(`blocked`) and refused again at the push.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypedDict

from workflow.devices.diffing import preview_diff
from workflow.errors import TemplateError
from workflow.model import TemplateProposal, Topology
from workflow.rendering import render
from workflow.safety import DenyList
from workflow.validation import validate_params, validate_template


class BlockedLine(TypedDict):
    line: str
    rule: str
    reason: str


class DevicePreview(TypedDict):
    platform: str
    params: dict[str, Any]
    lines: list[str]
    diff: str
    blocked: list[BlockedLine]


@dataclass(frozen=True)
class TemplateCheck:
    errors: list[str]
    examples: dict[str, list[str]]  # platform family -> example rendering
    blocked: bool  # some error is a deny-list hit (the change ends "blocked", not "failed")


def usable_devices(topology: Topology) -> list[str]:
    return sorted(name for name, facts in topology["devices"].items() if "error" not in facts)


def target_errors(proposal: TemplateProposal, topology: Topology) -> list[str]:
    """The targets must be usable devices whose families the template covers."""
    if not proposal["targets"]:
        return ["the proposal names no target devices; name them (e.g. R1, R2)"]
    errors = []
    usable = usable_devices(topology)
    for name in proposal["targets"]:
        facts = topology["devices"].get(name)
        if facts is None or "error" in facts:
            why = facts.get("error", "") if facts is not None else "not in the lab"
            errors.append(f"device {name} cannot be targeted ({why}); usable: {', '.join(usable)}")
        elif facts["family"] not in proposal["templates"]:
            errors.append(f"no {facts['family']} template, but {name} runs {facts['family']}")
    return errors


def blocked_lines(deny_list: DenyList, lines: list[str], family: str) -> list[BlockedLine]:
    return [
        BlockedLine(line=v.line, rule=v.rule, reason=v.reason)
        for v in deny_list.check(lines, family)
    ]


def check_template(
    proposal: TemplateProposal, topology: Topology, deny_list: DenyList
) -> TemplateCheck:
    """Validation errors (syntax, schema, example, deny-list, targets) and the example rendering.

    A template that does not render is already reported by `validate_template`, so its example
    is only left out here.
    """
    errors = [*validate_template(proposal, deny=deny_list), *target_errors(proposal, topology)]
    example, _ = validate_params(proposal["params_schema"], proposal["example_params"])
    examples: dict[str, list[str]] = {}
    blocked = False
    for family, source in sorted(proposal["templates"].items()):
        with contextlib.suppress(TemplateError):
            examples[family] = render(source, example)
            blocked = blocked or bool(deny_list.check(examples[family], family))
    return TemplateCheck(errors=list(dict.fromkeys(errors)), examples=examples, blocked=blocked)


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
    for name in proposal["targets"]:
        if name not in device_params:
            errors.append(f"no parameters for {name}")
            continue
        preview, device_errors = _preview_one(proposal, name, device_params[name], topology)
        errors.extend(f"{name}: {e}" for e in device_errors)
        if preview is not None:
            facts = topology["devices"][name]
            preview["blocked"] = blocked_lines(deny_list, preview["lines"], facts["family"])
            previews[name] = preview
    if not errors and not any(p["lines"] for p in previews.values()):
        errors.append("the template renders no configuration line for any device")
    return previews, errors


def _preview_one(
    proposal: TemplateProposal, name: str, params: Mapping[str, Any], topology: Topology
) -> tuple[DevicePreview | None, list[str]]:
    facts = topology["devices"][name]
    normalized, errors = validate_params(proposal["params_schema"], dict(params))
    if errors:
        return None, errors
    try:
        lines = render(proposal["templates"][facts["family"]], normalized)
    except TemplateError as err:
        return None, [str(err)]
    diff = preview_diff(facts["running_config"], lines, facts["platform"])
    return DevicePreview(
        platform=facts["platform"], params=normalized, lines=lines, diff=diff, blocked=[]
    ), []
