"""What the gates show, prepared and checked: a template's example rendering and each device's
preview (lines, diff, blocked lines), from a proposal validated by workflow/validation.py
against the deny-list of workflow/safety.py (pure functions over JSON data).

A template must validate, cover the targets' platform families and render its example without
a blocked command. Parameters must validate per device, render, and are diffed against each
device's running config; deny-list hits in the rendered lines are shown at the params gate
(`blocked`) and refused again at the push.

A template reading `facts` renders its example with the facts of a target of its family, and
each device with its own; both reviews show the facts used, so their hashes cover them. Facts
come from the lab (node, port and interface names), so they are checked like parameters: a
device whose facts hold a line break or control character is not offered at all.
"""

from __future__ import annotations

import contextlib
import fnmatch
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NotRequired, TypedDict

from base.errors import TemplateError
from workflow.devices.diffing import preview_diff
from workflow.model import DeviceFacts, TemplateProposal, Topology
from workflow.rendering import reads_facts, render
from workflow.safety import DenyList
from workflow.sections import inferred_sections, outside_sections, section_errors
from workflow.template_facts import TemplateFacts, example_facts, lab_facts
from workflow.validation import text_problem, validate_params, validate_template


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
    facts: NotRequired[TemplateFacts]  # the `facts` rendered, when the template reads them


@dataclass(frozen=True)
class TemplateCheck:
    errors: list[str]
    examples: dict[str, list[str]]  # platform family -> example rendering
    blocked: bool  # some error is a deny-list hit (the change ends "blocked", not "failed")
    example_facts: dict[str, TemplateFacts]  # family -> facts its example read (if it reads any)
    sections: list[str]  # what it may touch: declared (LLM), else read off the example


def usable_devices(topology: Topology) -> list[str]:
    return sorted(name for name, facts in topology["devices"].items() if "error" not in facts)


def expand_targets(patterns: Sequence[str], topology: Topology) -> list[str]:
    """Device names and globs (`R*`, `*`, or `all`) to names: a glob stands for the usable
    devices of the request's selection it matches; a name, or a glob matching none, is kept as
    given, so that `target_errors` names it. No pattern: the request's selection."""
    selection = topology.get("selection")
    usable = [n for n in usable_devices(topology) if selection is None or n in selection]
    if not patterns:
        return usable
    names: list[str] = []
    for pattern in patterns:
        glob = "*" if pattern.casefold() == "all" else pattern
        if any(mark in glob for mark in "*?["):
            matched = [n for n in usable if fnmatch.fnmatch(n.casefold(), glob.casefold())]
            names.extend(matched or [pattern])
        else:
            names.append(pattern)
    return list(dict.fromkeys(names))


def facts_errors(facts: Any, path: str = "") -> list[str]:
    """Every string in a device's `facts` that could not be printed safely into a config."""
    if isinstance(facts, str):
        problem = text_problem(facts)
        return [f"{path}: {problem}"] if problem else []
    if isinstance(facts, Mapping):
        items = [(f"{path}.{key}" if path else str(key), value) for key, value in facts.items()]
    elif isinstance(facts, list):
        items = [(f"{path}[{index}]", value) for index, value in enumerate(facts)]
    else:
        return []
    return [error for sub_path, value in items for error in facts_errors(value, sub_path)]


def refuse_unsafe_facts(topology: Topology) -> Topology:
    """The topology with every device whose template facts are unsafe marked unusable, saying
    why: a name with a line break would print as a second command."""
    devices = dict(topology["devices"])
    for name, facts in lab_facts(topology).items():
        errors = facts_errors(facts, "facts")
        if errors:
            refused = DeviceFacts(**devices[name])
            refused["error"] = (
                f"its lab facts cannot be used in a configuration ({'; '.join(errors)}); "
                "rename it in the lab"
            )
            devices[name] = refused
    return Topology(**{**topology, "devices": devices})


def target_errors(proposal: TemplateProposal, topology: Topology) -> list[str]:
    """The targets must be usable devices whose families the template covers."""
    if not proposal["targets"]:
        return ["the proposal names no target devices; name them (e.g. R1, R2)"]
    errors = []
    usable = usable_devices(topology)
    selection = topology.get("selection")
    for name in proposal["targets"]:
        facts = topology["devices"].get(name)
        if selection is not None and name not in selection:
            errors.append(
                f"device {name} was not asked for; the request selects: {', '.join(selection)}"
            )
        elif facts is None or "error" in facts:
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
    facts = _example_facts(proposal, topology)
    errors = [
        *validate_template(proposal, deny=deny_list, example_facts=facts),
        *target_errors(proposal, topology),
    ]
    example, _ = validate_params(proposal["params_schema"], proposal["example_params"])
    examples: dict[str, list[str]] = {}
    blocked = False
    for family, source in sorted(proposal["templates"].items()):
        with contextlib.suppress(TemplateError):
            examples[family] = render(source, example, facts=facts[family])
            blocked = blocked or bool(deny_list.check(examples[family], family))
    sections, section_problems = _sections(proposal, examples)
    return TemplateCheck(
        errors=list(dict.fromkeys(errors + section_problems)),
        examples=examples,
        blocked=blocked or bool(section_problems),
        example_facts={f: v for f, v in facts.items() if reads_facts(proposal["templates"][f])},
        sections=sections,
    )


def _sections(
    proposal: TemplateProposal, examples: dict[str, list[str]]
) -> tuple[list[str], list[str]]:
    """The sections the template may touch and what is wrong: an LLM's template declares them
    and its example must keep to them; others are read off their example rendering."""
    if proposal["source"] != "llm":
        return proposal.get("sections") or inferred_sections(examples.values()), []
    declared = proposal.get("sections")
    problems = section_errors(declared)
    if problems or declared is None:
        return [], problems
    return declared, [
        f"{family} example line {number} `{line.strip()}` is outside the declared sections "
        f"({'; '.join(declared)})"
        for family, lines in sorted(examples.items())
        for number, line in outside_sections(lines, declared)
    ]


def outside_errors(lines: list[str], sections: list[str]) -> list[str]:
    """Rendered lines outside the template's sections, as errors naming them."""
    return [
        f"line {number} `{line.strip()}` is outside the sections the template may touch "
        f"({'; '.join(sections)})"
        for number, line in outside_sections(lines, sections)
    ]


def _example_facts(proposal: TemplateProposal, topology: Topology) -> dict[str, TemplateFacts]:
    """Per family: the facts of its first target, else of a made-up router of that family."""
    lab = lab_facts(topology)
    facts: dict[str, TemplateFacts] = {}
    for name in proposal["targets"]:
        view = lab.get(name)
        if view is not None and view["family"] in proposal["templates"]:
            facts.setdefault(view["family"], view)
    return {family: facts.get(family) or example_facts(family) for family in proposal["templates"]}


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
        if preview is not None and "sections" in proposal:  # blocked before any preview
            errors.extend(
                f"{name}: {e}" for e in outside_errors(preview["lines"], proposal["sections"])
            )
        if preview is not None:
            facts = topology["devices"][name]
            preview["blocked"] = blocked_lines(deny_list, preview["lines"], facts["family"])
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
    return preview, []
