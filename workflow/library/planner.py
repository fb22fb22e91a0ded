"""The planner used without an LLM: library templates, parameters derived from the lab's facts.

Understood requests (case does not matter):
  apply <template> to <all|R1,R2|R1 R2|R*> [key=value ...]
  configure OSPF area 0 on all routers          (keywords pick the template, "area 0" a param)
  set ntp server 10.0.0.1 on R1 R2
Devices come after the last "to"/"on"/"for" and are chosen before planning
(workflow/results/targets.py,
fail closed); a device chosen by a glob or a kind that the template does not fit is left out,
saying why. Reviewer feedback on Modify ("area=1", "use process 10", "apply bgp") is applied on
top. Uses no tokens.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from base.errors import PlanningError, TargetError
from base.vocabulary import GateName
from workflow.chosen import is_named
from workflow.library.catalog import Catalog, LibraryTemplate, load_catalog
from workflow.library.derive import derive_params
from workflow.library.list_edits import ListEdit, edited, previous_params, split_edits
from workflow.model import (
    DeviceFacts,
    ParamsProposal,
    PlanRequest,
    TemplateProposal,
    TokenUsage,
)
from workflow.results.endings import targets_ending
from workflow.results.feedback import FeedbackProblem
from workflow.results.targets import (
    select_targets,
    target_words,
    topology_kinds,
    topology_selection,
)
from workflow.templates.validation import validate_params

__all__ = ["NO_TOKENS", "LibraryPlanner"]

_KEY_VALUE = re.compile(r"""(?<![\w-])([A-Za-z_][\w-]*)=("[^"]*"|'[^']*'|\S+)""")
# `apply ospf`, `apply lab_ospf@2`, `apply interface_address + ospf + banner` (combined, in order)
_APPLY = re.compile(r"^\s*apply\s+([\w-]+(?:@\d+)?(?:\s*\+\s*[\w-]+(?:@\d+)?)*)", re.IGNORECASE)
_STOP_WORDS = {"on", "to", "for", "all", "and", "the", "every", "with", "in", "of", "a", "lab"}
NO_TOKENS = TokenUsage(input_tokens=0, output_tokens=0, total_tokens=0)


@dataclass(frozen=True)
class ParsedRequest:
    template: LibraryTemplate | None  # None when the text names no template
    overrides: dict[str, Any]
    # a Modify's list values to add to or remove from each device's previous value
    edits: dict[str, ListEdit] = field(default_factory=dict)


def _unquote(value: str) -> str:
    return value[1:-1] if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'" else value


def _pick_template(text: str, catalog: Catalog) -> LibraryTemplate | None:
    applied = _APPLY.match(text)
    if applied:
        return catalog.get(applied.group(1))
    ranked = catalog.match(text)
    if len(ranked) > 1 and ranked[0].score(text) == ranked[1].score(text):
        tied = ", ".join(t.name for t in ranked if t.score(text) == ranked[0].score(text))
        raise PlanningError(f"Your request fits several templates ({tied}). {usage(catalog)}")
    return ranked[0] if ranked else None


def _phrase_values(text: str, template: LibraryTemplate) -> tuple[dict[str, str], str]:
    """Params set by "<word> <value>" phrases, and the text with those values removed."""
    found: dict[str, str] = {}
    skip = _STOP_WORDS | set(template.phrases) | set(template.keywords)
    for word, param in template.phrases.items():
        # the words of the parameter's own name may follow: "process id 20" sets process_id
        named = "|".join(re.escape(part) for part in param.split("_") if part != word)
        own_name = rf"(?:\s+(?:{named})\b)*" if named else ""
        pattern = re.compile(rf"(?<![\w-]){re.escape(word)}{own_name}\s+([^\s]+)", re.IGNORECASE)
        for match in pattern.finditer(text):
            if match.group(1).casefold() not in skip and param not in found:
                found[param] = match.group(1).rstrip(".;")
                text = text.replace(match.group(0), " ", 1)
    return found, text


def _coerce(template: LibraryTemplate, key: str, value: str) -> Any:
    spec = template.params_schema.get(key)
    if spec is None:
        known = ", ".join(template.params_schema)
        raise PlanningError(
            f"Template {template.name} has no parameter {key!r}; it takes: {known}."
        )
    if spec["type"] != "list":
        return value
    if value.startswith("["):
        try:
            return json.loads(value)
        except ValueError:
            raise PlanningError(f"{key}={value} is not a JSON list") from None
    return [part.strip() for part in value.split(",") if part.strip()]


def parse_request(
    text: str, catalog: Catalog, template: LibraryTemplate | None = None, *, keep: bool = False
) -> ParsedRequest:
    """Template and key=value / phrase overrides of `text`. `template` is the fallback when
    the text names none, or the template to use whatever the text says (`keep`)."""
    pairs = {key.replace("-", "_"): _unquote(value) for key, value in _KEY_VALUE.findall(text)}
    rest = _KEY_VALUE.sub(" ", text)
    if not (keep and template):
        template = _pick_template(rest, catalog) or template
    overrides: dict[str, Any] = {}
    if template is not None:
        phrases, rest = _phrase_values(rest, template)
        for key, value in {**phrases, **pairs}.items():
            overrides[key] = _coerce(template, key, value)
    elif pairs:
        raise PlanningError(f"Parameters were given but no template. {usage(catalog)}")
    return ParsedRequest(template, overrides)


def usage(catalog: Catalog) -> str:
    lines = [
        "Say `apply <template> to <all|R1,R2|R*> [key=value ...]`, e.g. "
        "`apply ospf to all area=0`, or describe it: `configure OSPF area 0 on all routers`.",
        "Templates:",
    ]
    for name in catalog.names():
        template = catalog.get(name)
        params = ", ".join(template.params_schema)
        lines.append(
            f"- {name} ({', '.join(template.families)}): {template.description} [{params}]"
        )
    return "\n".join(lines)


class LibraryPlanner:
    """`workflow.ports.Planner` over the built-in template library."""

    def __init__(self, catalog: Catalog | None = None) -> None:
        self._catalog = catalog or load_catalog()

    async def feedback_problem(
        self, request: PlanRequest, template: TemplateProposal, gate: GateName
    ) -> FeedbackProblem | None:
        """A Modify it cannot act on (workflow/results/feedback.py): nothing it can parse, a value
        the
        schema refuses, parameters at the template gate (they are set at the params gate)."""
        if template["name"] not in self._catalog.names():
            return None  # a rollback's literal lines: a Modify shows them again
        library = self._catalog.get(template["name"])
        feedback = request.feedback or ""
        reasons: list[str] = []
        try:
            if gate == "params":
                read = bool(parse_request(feedback, self._catalog, library, keep=True).overrides)
                reasons = self.derive(request, template)[1] if read else []
            else:
                parsed = parse_request(feedback, self._catalog, library)
                words = target_words(feedback)
                if words:  # devices no longer in the lab would end the change at `gather`
                    select_targets(words, topology_kinds(request.topology))
                read = parsed.template != library or bool(words)
                if not read and parsed.overrides:
                    return feedback_help(library, gate, [], params_later=True)
        except TargetError as err:
            return replace(feedback_help(library, gate, []), targets=targets_ending(err))
        except PlanningError as err:
            reasons = [str(err)]
            read = True
        if read and not reasons:
            return None
        return feedback_help(library, gate, reasons)

    def _parse(
        self, request: PlanRequest, template: LibraryTemplate | None = None
    ) -> ParsedRequest:
        """The request, with the reviewer's feedback on top. A given `template` is kept."""
        keep = template is not None
        parsed = parse_request(request.text, self._catalog, template, keep=keep)
        if not request.feedback:
            return parsed
        feedback = parse_request(request.feedback, self._catalog, parsed.template, keep=keep)
        switched = feedback.template != parsed.template  # "apply bgp": the old params do not fit
        schema = feedback.template.params_schema if feedback.template else {}
        overrides, edits = split_edits(request.feedback, feedback.overrides, schema)
        return ParsedRequest(
            feedback.template, {**({} if switched else parsed.overrides), **overrides}, edits
        )

    async def propose_template(self, request: PlanRequest) -> TemplateProposal:
        parsed = self._parse(request)
        if parsed.template is None:
            raise PlanningError(
                f"I did not recognise a template in {request.text!r}.\n{usage(self._catalog)}"
            )
        template = parsed.template
        targets, excluded = [], []
        asked = request.feedback if target_words(request.feedback or "") else request.text
        selection = topology_selection(asked or request.text, request.topology)
        for name in selection:
            facts = request.topology["devices"][name]
            named = is_named(selection.get(name))
            errors = [] if named else _device_params(template, facts, request, parsed)[1]
            if facts.get("error"):
                excluded.append(f"{name} (facts unavailable: {facts.get('error')})")
            elif facts["family"] not in template.templates:
                excluded.append(f"{name} (no {facts['family']} variant)")
            elif errors:  # "all routers", "R*": skip those the lab's facts do not fit
                excluded.append(f"{name} ({errors[0]})")
            else:
                targets.append(name)
        if not targets:
            detail = "; ".join(excluded) or "the lab has no devices"
            raise PlanningError(f"No device can take template {template.name}: {detail}.")
        families = {request.topology["devices"][name]["family"] for name in targets}
        proposal = self._catalog.as_proposal(template.name, targets, families)
        proposal["tokens"] = NO_TOKENS
        if parsed.overrides:
            proposal["requested"] = _requested(template, parsed.overrides)
        if excluded:
            proposal["description"] += f" Excluded: {'; '.join(excluded)}."
        return proposal

    async def propose_params(
        self, request: PlanRequest, template: TemplateProposal
    ) -> ParamsProposal:
        device_params, problems = self.derive(request, template)
        if problems:
            raise PlanningError(_params_help(self._catalog.get(template["name"]), problems))
        return ParamsProposal(device_params=device_params, tokens=NO_TOKENS)

    def derive(
        self, request: PlanRequest, template: TemplateProposal
    ) -> tuple[dict[str, dict[str, Any]], list[str]]:
        """Each target's params derived from the lab's facts under the request's key=value and
        phrase values, validated (defaults applied); and what is missing or wrong, per device.
        Raises PlanningError when the request names a parameter the template does not have."""
        library = self._catalog.get(template["name"])
        parsed = self._parse(request, library)
        device_params: dict[str, dict[str, Any]] = {}
        problems: list[str] = []
        for name in template["targets"]:
            facts = request.topology["devices"].get(name)
            if facts is None:
                problems.append(f"{name}: not in the lab any more")
                continue
            params, errors = _device_params(library, facts, request, parsed, name)
            device_params[name] = params
            problems.extend(f"{name}: {error}" for error in errors)
        return device_params, problems


def _device_params(
    template: LibraryTemplate,
    facts: DeviceFacts,
    request: PlanRequest,
    parsed: ParsedRequest,
    device: str = "",
) -> tuple[dict[str, Any], list[str]]:
    """Derived params (only those the schema knows) under the explicit overrides, validated;
    a Modify's list edits applied to the `device`'s previous values."""
    derived = derive_params(template.derive, facts, request.topology, parsed.overrides)
    schema = template.params_schema
    known = {key: value for key, value in derived.items() if key in schema}
    params = {**known, **parsed.overrides}
    if parsed.edits:
        before = previous_params(request, device)
        params |= {
            key: edited({**params, **before}.get(key), edit) for key, edit in parsed.edits.items()
        }
    return validate_params(schema, params)


def _requested(template: LibraryTemplate, overrides: Mapping[str, Any]) -> dict[str, Any]:
    """The values the request gave, as the schema reads them ("area 0" -> 0); as typed when
    the schema refuses one (the params step then says why)."""
    schema = {key: template.params_schema[key] for key in overrides}
    normalized, errors = validate_params(schema, overrides)
    return dict(overrides) if errors else normalized


def feedback_help(
    template: LibraryTemplate, gate: GateName, reasons: list[str], *, params_later: bool = False
) -> FeedbackProblem:
    return FeedbackProblem(
        gate=gate,
        template=template.name,
        params=tuple(template.params_schema),
        example=_example(template),
        reasons=tuple(reasons),
        params_later=params_later,
    )


def _example(template: LibraryTemplate) -> str:
    return " ".join(f"{k}={_example_text(v)}" for k, v in template.example_params.items())


def _params_help(template: LibraryTemplate, problems: list[str]) -> str:
    example = _example(template)
    return (
        f"The parameters for {template.name} are not complete:\n- "
        + "\n- ".join(problems)
        + f"\nGive them as key=value, e.g. `apply {template.name} to R1 {example}`."
    )


def _example_text(value: Any) -> str:
    if isinstance(value, list) and all(not isinstance(v, Mapping) for v in value):
        return ",".join(str(v) for v in value)
    return json.dumps(value, separators=(",", ":")) if not isinstance(value, str) else value
