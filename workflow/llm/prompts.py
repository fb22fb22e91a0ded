"""Every text the LLM reads, in one place.

Prompts stay short on purpose: the template flow's token budget (seed 003: ≤ 25 % of writing
each device's config) is spent mostly here. The template step sees device names per
platform family only; the parameters step sees one compact line per target device (interfaces
and addresses, never running configs).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from workflow.model import PlanRequest, TemplateProposal, Topology

TEMPLATE_SYSTEM = """\
You write Jinja2 templates for network device configuration in a lab.
Rules:
- One configuration command per line; no `configure terminal`, `end` or `write`.
- Never reload, erase, delete, format, change boot settings or debug.
- Every variable used must be in params_schema. Types: str, int, bool, ipv4, ipv6, ip,
  ip_interface, ipv4_network, mask, vlan, asn, interface, list (with items or fields).
- Write one template per platform family of the target devices.
- If a built-in template does exactly what is asked, answer only its name in
  library_template and the targets."""

PARAMS_SYSTEM = """\
You fill in per-device parameters for an approved Jinja2 template.
Use only the lab facts given (device names, interfaces, addresses).
Answer parameters for every target device, matching the schema exactly."""


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
        lines.append(f"{name} {facts['family']}: {ifaces}")
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
        notes.append("Your previous answer:\n" + _compact(request.previous))
    if request.errors:
        notes.append("It was rejected:\n" + "\n".join(f"- {e}" for e in request.errors))
    if request.feedback:
        notes.append(f"The reviewer asks: {request.feedback}")
    return notes


def families_line(topology: Topology) -> str:
    """`cisco_ios: R1, R2; arista_eos: SW1`: all a template needs to know about the lab."""
    by_family: dict[str, list[str]] = {}
    for name, facts in sorted(topology["devices"].items()):
        if "error" not in facts:
            by_family.setdefault(facts["family"], []).append(name)
    return "; ".join(f"{family}: {', '.join(names)}" for family, names in sorted(by_family.items()))


def template_prompt(request: PlanRequest, library: Mapping[str, str]) -> str:
    """The human message of the template step. `library`: built-in name -> description (the
    ones matching the request), or -> "" (the others, listed by name only)."""
    parts = [f"Request: {request.text}", f"Devices: {families_line(request.topology)}"]
    if library:
        parts.append(
            "Built-in templates: " + "; ".join(f"{n} ({d})" if d else n for n, d in library.items())
        )
    parts.extend(_revision_notes(request))
    return "\n".join(parts)


def params_prompt(request: PlanRequest, template: TemplateProposal) -> str:
    """The human message of the parameters step: the approved template's schema and the lab."""
    parts = [
        f"Request: {request.text}",
        f"Template {template['name']}: {template['description']}",
        "Schema: " + _compact(template["params_schema"]),
        "Example: " + _compact(template["example_params"]),
        "Targets: " + ", ".join(template["targets"]),
        "Lab:",
        *topology_lines(request.topology, template["targets"]),
    ]
    parts.extend(_revision_notes(request))
    return "\n".join(parts)


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True, default=str)
