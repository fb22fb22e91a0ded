"""The newer saved versions of the templates a change uses (the gates and the report say so)."""

from __future__ import annotations

from workflow.library.compose import proposal_parts
from workflow.model import TemplateProposal
from workflow.ports import SavedTemplates

__all__ = ["newer_versions"]


async def newer_versions(
    saved: SavedTemplates | None, template: TemplateProposal
) -> dict[str, int]:
    """{name: newest version} for each saved template the proposal uses in an older version."""
    used = {p["name"]: p["version"] for p in proposal_parts(template) if p["version"] is not None}
    if saved is None or not used:
        return {}
    latest = await saved.latest_versions(sorted(used))
    return {name: newest for name, newest in sorted(latest.items()) if newest > (used[name] or 0)}
