"""What the push node checks again just before it pushes: every line against the deny-list (it
may be stricter than at preview) and the template's sections, or, for a rollback, the lines
that restore a device."""

from __future__ import annotations

from workflow.model import TemplateProposal, Topology
from workflow.phases.previews import DevicePreview
from workflow.results.endings import Refusal, push_refusals
from workflow.results.rollbacks import restore_refusals
from workflow.safety.allowances import allowed_by
from workflow.safety.deny import DenyList
from workflow.safety.sections import declared_sections, is_restore, misplaced_lines

__all__ = ["blocked_now"]


def blocked_now(
    deny_list: DenyList,
    template: TemplateProposal,
    previews: dict[str, DevicePreview],
    topology: Topology,
    restore: dict[str, list[str]] | None,
) -> list[Refusal]:
    """The refusals of the lines previewed, per device, at push time (none: it may push)."""
    sections = declared_sections(template)
    allow = allowed_by(template)
    refusals = []
    for name, preview in sorted(previews.items()):
        facts = topology["devices"][name]
        family, lines = facts["family"], preview["lines"]
        management = facts.get("management")
        refusals.extend(push_refusals(deny_list, name, lines, family, allow, management))
        if is_restore(template):
            refusals.extend(restore_refusals(restore, name, lines))
        elif sections is not None:
            refusals.extend(
                Refusal(device=name, line=m.line, rule="sections", detail="; ".join(sections))
                for m in misplaced_lines(lines, sections, family)
            )
    return refusals
