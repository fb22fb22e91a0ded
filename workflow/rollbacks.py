"""A rollback as a change of its own: the lines that bring each device back to its
configuration saved before a change, as a template of literal lines, shown and approved like any
other change."""

from __future__ import annotations

from workflow.allowances import restoring_allowances
from workflow.model import TemplateProposal, Topology
from workflow.safety import DenyList

ROLLBACK_TEMPLATE = "{% for line in lines %}{{ line }}\n{% endfor %}"


def rollback_template(
    plan: dict[str, list[str]], topology: Topology, deny_list: DenyList
) -> TemplateProposal:
    """A rollback is literal lines per device, shown and approved like any other change; it
    may break the deny-list rules its own lines break (shown at its gate: workflow.allowances)."""
    families = sorted({topology["devices"][name]["family"] for name in plan})
    proposal = TemplateProposal(
        name="rollback",
        description="Restore the configuration saved before the change (literal lines).",
        templates=dict.fromkeys(families, ROLLBACK_TEMPLATE),
        params_schema={"lines": {"type": "list", "items": {"type": "str"}}},
        example_params={"lines": next(lines for lines in plan.values() if lines)[:3]},
        targets=sorted(name for name, lines in plan.items() if lines),
        source="rollback",
        sections=["*"],  # whatever the backup held; the deny-list still applies
    )
    of = {name: topology["devices"][name]["family"] for name in plan}
    if allow := restoring_allowances(deny_list, plan, of):
        proposal["allow"] = allow
    return proposal
