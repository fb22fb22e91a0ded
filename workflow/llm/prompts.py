"""Every text the LLM reads, in one place.

Prompts stay short on purpose: the template flow's token budget (target: <= 25 % of writing
each device's config) is spent mostly here. The template step sees device names per platform
family only (runs of numbered names as ranges: R1..R50) and learns about `facts`, so templates
read per-device values from the lab instead of asking for them. The parameters step asks for
`common` values and per-device differences only; it sees one compact line per target device
(interfaces and addresses, never running configs) only when the template does not read `facts`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from workflow.llm.schemas import split_common
from workflow.model import ParamSpec, PlanRequest, TemplateProposal, Topology
from workflow.templates.rendering import reads_facts

TEMPLATE_SYSTEM = """\
You write Jinja2 templates of network device configuration: one command per line; no
configure terminal, end, write or destructive commands (reload, erase, delete, boot, debug).
Per-device values: facts.name, facts.router_id, facts.interfaces (name, address as CIDR or
none, enabled, loopback), facts.neighbors (interface, device, device_interface, address).
Other values go in params_schema as "type" or "type=default" (the request's value), lists as
{type: list, items or fields}. Types: str int bool ipv4 ipv6 ip ip_interface ipv4_network
mask vlan asn interface. Filters: network wildcard netmask prefixlen host.
templates: one per platform family. targets: device names or globs (R*). post_checks: any
of ospf_neighbors loopback_routes bgp_sessions bgp_prefixes {kind: routes, param: P}.
sections: the config lines it may touch, levels joined by " / ", globs, down to each line it
writes: "router ospf * / network *", "interface * / ip ospf *" ("*" alone is not a section).
Lines are checked where they land on a copy of the device; indent children with spaces only;
no exit, end, !, do, multi-line banners."""

PARAMS_SYSTEM = """\
You set the parameters of an approved Jinja2 template from the request. Answer `common`
(values for every device) and `devices` (device -> only its values that differ); leave out
parameters whose default fits."""

FACTS_NOTE = "The template reads each device's facts (interfaces, addresses, neighbors) itself."

_NUMBERED = re.compile(r"^(.*?)([1-9]\d*)$")  # zero-padded names (R01) are never ranged


def name_ranges(names: Iterable[str]) -> str:
    """`R1..R12, SW1, SW2`: three or more consecutively numbered names become one range."""
    runs: list[list[str]] = []
    previous: tuple[str, int] | None = None
    for prefix, number, name in sorted(_numbered(name) for name in set(names)):
        if number > 0 and previous == (prefix, number - 1):
            runs[-1].append(name)
        else:
            runs.append([name])
        previous = (prefix, number) if number > 0 else None
    return ", ".join(f"{r[0]}..{r[-1]}" if len(r) >= 3 else ", ".join(r) for r in runs)


def _numbered(name: str) -> tuple[str, int, str]:
    """(prefix, number, name): sorts R2 before R10; a name without a number gets 0."""
    match = _NUMBERED.match(name)
    return (match.group(1), int(match.group(2)), name) if match else (name, 0, name)


def summary(description: str) -> str:
    """A description's gist: the text before its first `;` or parenthesis."""
    return re.split(r"\s*[;(]", description, maxsplit=1)[0].strip() or description


def schema_text(schema: Mapping[str, ParamSpec]) -> str:
    """The schema as compact JSON, scalars in the shorthand the template step writes them in
    ("int=10"), everything else (lists, bounds, descriptions) in full."""
    shown: dict[str, Any] = {}
    for name, spec in schema.items():
        if spec["type"] == "list" or set(spec) - {"type", "default"}:
            shown[name] = spec
        else:
            shown[name] = spec["type"] + (f"={spec['default']}" if "default" in spec else "")
    return _compact(shown)


def topology_lines(topology: Topology, names: Sequence[str] | None = None) -> list[str]:
    """`R1 cisco_ios: Gi0/0=10.0.12.1/24, Lo0=1.1.1.1/32, Gi0/1=-` per usable device."""
    lines = []
    for name, facts in sorted(topology["devices"].items()):
        if "error" in facts or (names is not None and name not in names):
            continue
        ifaces = ", ".join(
            f"{i['name']}={i['address'] or '-'}{'' if i['enabled'] else '(down)'}"
            for i in facts["interfaces"]
        )
        unread = facts.get("state_unread")
        known = f" (from its configuration only: {unread})" if unread else ""
        lines.append(f"{name} {facts['family']}: {ifaces}{known}")
    for link in topology["links"]:
        if names is None or {link["a_device"], link["b_device"]} & set(names):
            lines.append(
                f"link {link['a_device']} {link['a_interface']} - "
                f"{link['b_device']} {link['b_interface']}"
            )
    return lines


def _revision_notes(request: PlanRequest) -> list[str]:
    notes = []
    if request.previous is not None:
        previous = request.previous
        if "device_params" in previous:  # shown in the form the answer takes
            previous = split_common(previous["device_params"] or {})
        notes.append("Your previous answer:\n" + _compact(previous))
    if request.errors:
        notes.append("It was rejected:\n" + "\n".join(f"- {e}" for e in request.errors))
    if request.feedback:
        notes.append(f"The reviewer asks: {request.feedback}")
    return notes


def families_line(topology: Topology) -> str:
    """`cisco_ios: R1..R9; arista_eos: SW1`: all a template needs to know about the lab."""
    by_family: dict[str, list[str]] = {}
    for name, facts in sorted(topology["devices"].items()):
        if "error" not in facts:
            by_family.setdefault(facts["family"], []).append(name)
    listed = (f"{family}: {name_ranges(names)}" for family, names in sorted(by_family.items()))
    return "; ".join(listed)


def template_prompt(request: PlanRequest, library: Mapping[str, str]) -> str:
    """The human message of the template step. `library`: built-in name -> description, for
    the built-in templates matching the request (none: no built-in template is offered)."""
    parts = [f"Request: {request.text}", f"Devices: {families_line(request.topology)}"]
    if library:
        listed = "; ".join(f"{name} ({text})" for name, text in library.items())
        parts.append(f"Built-in templates (answer only name and targets to use one): {listed}")
    parts.extend(_revision_notes(request))
    return "\n".join(parts)


def params_prompt(
    request: PlanRequest,
    template: TemplateProposal,
    derived: Mapping[str, Mapping[str, Any]] | None = None,
    problems: Sequence[str] = (),
) -> str:
    """The human message of the parameters step: the approved template's schema, the targets,
    and the lab's facts unless the template reads them itself. `derived`: values computed
    locally (a built-in template's), which the answer overrides; `problems`: what they lack."""
    parts = [
        f"Request: {request.text}",
        f"Template {template['name']}: {template['description']}",
        "Schema: " + schema_text(template["params_schema"]),
    ]
    if template["example_params"]:
        parts.append("Example: " + _compact(template["example_params"]))
    parts.append("Targets: " + name_ranges(template["targets"]))
    if all(reads_facts(source) for source in template["templates"].values()):
        parts.append(FACTS_NOTE)
    else:
        parts.extend(["Lab:", *topology_lines(request.topology, template["targets"])])
    if derived is not None:
        derived_text = _compact(split_common(derived))
        parts.append(f"Derived from the lab (answer only changes): {derived_text}")
    if problems:
        parts.append("Still missing:\n" + "\n".join(f"- {p}" for p in problems))
    parts.extend(_revision_notes(request))
    return "\n".join(parts)


def _compact(value: Any) -> str:
    """JSON without spaces; text as written (a secret's token `‹secret:…›` reads as in views)."""
    return json.dumps(value, separators=(",", ":"), sort_keys=True, default=str, ensure_ascii=False)


def json_answer(schema: Mapping[str, Any]) -> str:
    """The system message's last line when the answer is JSON in the text (no tools, no
    response_format): the schema the tool would have carried."""
    return "Answer with one JSON object only, of this JSON schema: " + _compact(schema)


def invalid_answer(problem: str) -> str:
    """Sent back with the model's own answer when it did not fit the schema."""
    return f"That answer is not valid: {problem}\nAnswer again with the whole corrected answer."
