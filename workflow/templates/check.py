"""A proposed template checked before any human sees it: syntax, variables against its schema,
the example rendering (once, against the deny-list and its sections), post-checks and targets.

Errors are human-readable (fed back to the planner on retry); [] means valid. A template must
cover the targets' platform families. A template reading `facts` renders its example with the
facts of a target of its family (else of a made-up device of that family); the template review
shows the facts used, so its hash covers them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from base.errors import TemplateError
from base.grammar import grammar_for
from workflow.model import ParamSpec, TemplateProposal, Topology
from workflow.postcheck_spec import post_check_errors
from workflow.results.targets import usable_devices
from workflow.safety.allowances import allowance_problems, allowed_by
from workflow.safety.deny import DenyList
from workflow.safety.sections import example_section_errors, section_errors
from workflow.templates import facts as template_facts
from workflow.templates.facts import TemplateFacts, lab_facts
from workflow.templates.rendering import (
    FACTS,
    compile_template,
    reads_facts,
    render,
    template_variables,
)
from workflow.templates.validation import schema_errors, validate_params

__all__ = ["TemplateCheck", "check_template", "for_lab_families"]


@dataclass(frozen=True)
class TemplateCheck:
    errors: list[str]
    examples: dict[str, list[str]]  # platform family -> example rendering
    blocked: bool  # some error is a policy hit (the change ends "blocked", not "failed")
    example_facts: dict[str, TemplateFacts]  # family -> facts its example read (if it reads any)
    sections: list[str]  # what it may touch, as the template declares


@dataclass
class _Families:
    """What checking each family's source found."""

    errors: list[str]
    examples: dict[str, list[str]]  # family -> example rendering (those that rendered)
    used: set[str] | None  # variables read by any template (None: one does not compile)
    denied: bool  # an example holds a deny-listed line


def validate_template(
    proposal: TemplateProposal,
    *,
    deny: DenyList | None = None,
    example_facts: Mapping[str, TemplateFacts] | None = None,
) -> list[str]:
    """Syntax, variables vs params_schema, example rendering and deny-list, per family; the
    post-checks. The example renders with `example_facts[family]` (a lab device's facts), else
    with the made-up `template_facts.example_facts(family)`."""
    return _validate(proposal, deny or DenyList(), example_facts or {})[0]


def check_template(
    proposal: TemplateProposal, topology: Topology, deny_list: DenyList
) -> TemplateCheck:
    """Validation errors (syntax, schema, example, deny-list, targets, sections) and the
    example rendering (a template that does not render is reported and has no example)."""
    facts = _example_facts(proposal, topology)
    errors, families = _validate(proposal, deny_list, facts)
    sections, section_problems = example_section_errors(proposal, families.examples)
    reading = {f: v for f, v in facts.items() if reads_facts(proposal["templates"][f])}
    return TemplateCheck(
        errors=list(dict.fromkeys(errors + target_errors(proposal, topology) + section_problems)),
        examples=dict(sorted(families.examples.items())),
        blocked=families.denied or bool(section_problems) or bool(allowance_problems(proposal)),
        example_facts=reading,
        sections=sections,
    )


def _validate(
    proposal: TemplateProposal, deny: DenyList, example_facts: Mapping[str, TemplateFacts]
) -> tuple[list[str], _Families]:
    if not proposal.get("templates"):
        missing = "the proposal has no template (expected one per device family, e.g. cisco_ios)"
        return [missing], _Families([], {}, set(), False)
    schema = proposal["params_schema"]
    errors = schema_errors(schema) + allowance_problems(proposal)
    example, param_errors = validate_params(schema, proposal.get("example_params", {}))
    errors.extend(f"example_params: {error}" for error in param_errors)
    families = _check_families(proposal, None if param_errors else example, deny, example_facts)
    errors.extend(families.errors)
    errors.extend(post_check_errors(proposal.get("post_checks"), schema))
    for name, spec in schema.items():
        required = spec.get("required", True) and "default" not in spec
        if required and families.used is not None and name not in families.used:
            errors.append(
                f"required parameter '{name}' is not used by any template; "
                "use it or make it optional"
            )
    return errors, families


def _check_families(
    proposal: TemplateProposal,
    example: Mapping[str, Any] | None,
    deny: DenyList,
    example_facts: Mapping[str, TemplateFacts],
) -> _Families:
    found = _Families([], {}, set(), False)
    allow = allowed_by(proposal)
    for family, source in proposal["templates"].items():
        facts = example_facts.get(family) or template_facts.example_facts(family)
        used, lines, errors = _family(family, source, proposal["params_schema"], example, facts)
        found.used = None if used is None or found.used is None else found.used | used
        if lines is not None:
            found.examples[family] = lines
            hits = deny.check(lines, family, allow)
            found.denied = found.denied or bool(hits)
            errors.extend(f"{family} template example: {violation}" for violation in hits)
        found.errors.extend(errors)
    return found


def _family(
    family: str,
    source: str,
    schema: Mapping[str, ParamSpec],
    example: Mapping[str, Any] | None,
    facts: TemplateFacts,
) -> tuple[set[str] | None, list[str] | None, list[str]]:
    """(variables the template reads, or None when it does not compile; its example rendering,
    or None; errors). With valid example params and no unknown variable, it renders."""
    where = f"{family} template"
    try:
        compile_template(source)
        used = template_variables(source)
    except TemplateError as exc:
        return None, None, [f"{where}: {exc}"]
    errors = [
        f"{where} uses '{name}', which is not in params_schema (add it there or remove it)"
        for name in sorted(used - set(schema) - {FACTS})
    ]
    if errors or example is None:  # example params invalid: rendering would only add noise
        return used, None, errors
    try:
        lines = render(source, template_facts.in_own_names(example, schema, facts), facts=facts)
    except TemplateError as exc:
        return used, None, [f"{where} fails on example_params: {exc}"]
    if not lines:
        errors.append(f"{where} renders no lines with example_params")
    return used, lines, errors


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


def _example_facts(proposal: TemplateProposal, topology: Topology) -> dict[str, TemplateFacts]:
    """Per family: the facts of its first target, else of a made-up router of that family."""
    lab = lab_facts(topology)
    facts: dict[str, TemplateFacts] = {}
    for name in proposal["targets"]:
        view = lab.get(name)
        if view is not None and view["family"] in proposal["templates"]:
            facts.setdefault(view["family"], view)
    return {
        family: facts.get(family) or template_facts.example_facts(family)
        for family in proposal["templates"]
    }


def for_lab_families(proposal: TemplateProposal, topology: Topology) -> TemplateProposal:
    """The proposal with only what the lab's families can use: the templates of those families
    (an LLM may write Junos and VRP for an all-Cisco lab) and the sections one of them can
    open (the library's OSPF declares `set protocols ospf *` for Junos). Never wider: a section
    dropped opens a mode no lab family's grammar knows, whose lines would be refused anyway.
    The templates as they are when none is of the lab's families (the targets' check says so)."""
    families = {facts["family"] for facts in topology["devices"].values()}
    kept = {f: source for f, source in proposal["templates"].items() if f in families}
    narrowed = TemplateProposal(**{**proposal, "templates": kept or proposal["templates"]})
    if "sections" in proposal:
        in_use = set(narrowed["templates"])
        kept_sections = [s for s in proposal["sections"] if _opened_by(s, in_use)]
        narrowed["sections"] = kept_sections or proposal["sections"]
    return narrowed


def _opened_by(section: object, families: set[str]) -> bool:
    """Some family's grammar knows the section's first level as a command (any family without
    a grammar may use any section); one that is no section stays for the checks to name."""
    if not isinstance(section, str) or section_errors([section]):
        return True
    first = section.split(" / ")[0].replace("*", "1")
    grammars = [grammar_for(family) for family in families]
    return any(g is None or g.numbered([first])[0][2].known for g in grammars)
