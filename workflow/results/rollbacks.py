"""A rollback as a change of its own: the lines that bring each device back to its
configuration saved before a change, as a template of literal lines, shown and approved like any
other change.

A rollback declares no sections (`workflow.safety.sections.is_restore`): its lines are computed by
the
gateway from the device's own "before" backup (`DeviceGateway.rollback_plan`), never by a
planner, and the push sends exactly those lines (`restore_refusals` checks that they still are
what the plan said); the deny-list still applies, with the allowances its own lines need."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from workflow.model import TemplateProposal, Topology
from workflow.results.endings import Refusal
from workflow.safety.allowances import restoring_allowances
from workflow.safety.deny import DenyList

__all__ = ["restore_refusals", "rollback_template"]

ROLLBACK_TEMPLATE = "{% for line in lines %}{{ line }}\n{% endfor %}"


def rollback_template(
    plan: dict[str, list[str]], topology: Topology, deny_list: DenyList
) -> TemplateProposal:
    """A rollback is literal lines per device, shown and approved like any other change; it
    may break the deny-list rules its own lines break (shown at its gate:
    workflow.safety.allowances)."""
    families = sorted({topology["devices"][name]["family"] for name in plan})
    proposal = TemplateProposal(
        name="rollback",
        description="Restore the configuration saved before the change (literal lines).",
        templates=dict.fromkeys(families, ROLLBACK_TEMPLATE),
        params_schema={"lines": {"type": "list", "items": {"type": "str"}}},
        example_params={"lines": next(lines for lines in plan.values() if lines)[:3]},
        targets=sorted(name for name, lines in plan.items() if lines),
        source="rollback",
    )
    of = {name: topology["devices"][name]["family"] for name in plan}
    if allow := restoring_allowances(deny_list, plan, of):
        proposal["allow"] = allow
    return proposal


def restore_refusals(
    plan: Mapping[str, Sequence[str]] | None, device: str, lines: Sequence[str]
) -> list[Refusal]:
    """The rendered lines of a rollback must be its plan's lines for `device`, exactly."""
    if plan is not None and list(plan.get(device, ())) == list(lines):
        return []
    return [
        Refusal(device=device, line=line, rule="sections", detail="not in the restore plan")
        for line in lines
    ]
