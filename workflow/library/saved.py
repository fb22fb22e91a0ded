"""Reusing the team's saved templates: a planner in front of the configured one.

A request that names saved templates or combines several (`apply lab_ospf to R1`,
`apply lab_ospf@2 to all`, `apply interface_address + ospf + banner to R1,R2`), or that
mentions a saved template's name in plain words, gets its template from the library with no
LLM call (0 template tokens). Its parameters are derived from the lab's facts and the request's
`key=value` values like a built-in template's; only when that leaves a gap is the LLM asked
(when one is configured), and only for parameters. Every other request goes to the configured
planner unchanged.
"""

from __future__ import annotations

from base.errors import PlanningError
from base.vocabulary import GateName
from workflow.library.catalog import Catalog, LibraryTemplate, load_catalog
from workflow.library.compose import applied_names, combine, from_saved, mentions
from workflow.library.planner import NO_TOKENS, LibraryPlanner
from workflow.model import ParamsProposal, PlanRequest, TemplateProposal
from workflow.ports import Planner, SavedTemplates
from workflow.results.feedback import FeedbackProblem, FeedbackReader

__all__ = ["SavedTemplatePlanner"]


class SavedTemplatePlanner:
    """`workflow.ports.Planner`: saved and combined templates here, the rest to `inner`."""

    def __init__(
        self,
        inner: Planner,
        saved: SavedTemplates,
        *,
        catalog: Catalog | None = None,
        llm: Planner | None = None,
    ) -> None:
        """`llm`: the LLM planner when one is configured: asked for the parameters the lab's
        facts do not give, and left to read `apply <words>` naming no template at all."""
        self._inner = inner
        self._saved = saved
        self._catalog = catalog or load_catalog()
        self._llm = llm

    async def propose_template(self, request: PlanRequest) -> TemplateProposal:
        template = await self._requested(request)
        if template is None:
            return await self._inner.propose_template(request)
        proposal = await LibraryPlanner(Catalog([template])).propose_template(request)
        proposal["source"] = "saved" if _has_saved(template) else "library"
        proposal["tokens"] = NO_TOKENS
        return proposal

    async def propose_params(
        self, request: PlanRequest, template: TemplateProposal
    ) -> ParamsProposal:
        parts = template.get("parts", [])
        if template["source"] != "saved" and len(parts) <= 1:
            return await self._inner.propose_params(request, template)
        library = await self._rebuild(template)
        params, problems = LibraryPlanner(Catalog([library])).derive(request, template)
        if not problems:
            return ParamsProposal(device_params=params, tokens=NO_TOKENS)
        if self._llm is not None:
            return await self._llm.propose_params(request, template)
        listed = "\n- ".join(problems)
        raise PlanningError(
            f"The parameters for {template['name']} are not complete:\n- {listed}\n"
            "Give them as key=value in the request or with Modify, e.g. `interface=Gi0/1`."
        )

    async def feedback_problem(
        self, request: PlanRequest, template: TemplateProposal, gate: GateName
    ) -> FeedbackProblem | None:
        """An LLM reads any Modify; else the library's reading, for saved and combined
        templates at the params gate too (the template gate of those is left to the planner)."""
        if self._llm is not None:
            return None
        if template["source"] != "saved" and len(template.get("parts", [])) <= 1:
            inner = self._inner
            if isinstance(inner, FeedbackReader):
                return await inner.feedback_problem(request, template, gate)
            return None
        if gate != "params":
            return None
        library = LibraryPlanner(Catalog([await self._rebuild(template)]))
        return await library.feedback_problem(request, template, gate)

    async def _requested(self, request: PlanRequest) -> LibraryTemplate | None:
        """The saved or combined template the request names, or None."""
        applied = applied_names(request.text)
        if applied is not None:
            spec, names = applied
            (first, version), alone = names[0], len(names) == 1
            plain = first in self._catalog.names() or self._llm is not None
            if alone and version is None and plain and not await self._is_saved(first):
                return None  # a built-in, or words for the LLM: the configured planner's
            parts = [await self._one(name, version, request.scope) for name, version in names]
            return combine(spec, parts)
        for name in await self._saved.names():
            if mentions(request.text, name):
                return combine(name, [await self._one(name, None, request.scope)])
        return None

    async def _is_saved(self, name: str) -> bool:
        return name not in self._catalog.names() and name in await self._saved.names()

    async def _one(self, name: str, version: int | None, scope: str) -> LibraryTemplate:
        if name in self._catalog.names():
            if version is not None:
                raise PlanningError(
                    f"{name} is a built-in template and has no versions; say `apply {name}`"
                )
            return self._catalog.get(name)
        saved = await self._saved.resolve(name, version, scope)
        if saved is not None:
            return from_saved(saved)
        versions = await self._saved.versions(name)
        if versions:
            raise PlanningError(
                f"There is no {name}@{version}: {name} has version(s) "
                f"{', '.join(map(str, versions))}. See `templates history {name}`."
            )
        raise PlanningError(await self._unknown(name))

    async def _unknown(self, name: str) -> str:
        saved = ", ".join(await self._saved.names()) or "none yet"
        return (
            f"There is no template {name!r}, built-in or saved. "
            f"Saved: {saved}. Built-in: {', '.join(self._catalog.names())}."
        )

    async def _rebuild(self, template: TemplateProposal) -> LibraryTemplate:
        """The proposal's template as the library knows it (derivers, phrases), from its parts:
        saved parts by their exact version, so a newer save changes nothing here."""
        parts: list[LibraryTemplate] = []
        for part in template.get("parts", []):
            if part["version"] is None:
                parts.append(self._catalog.get(part["name"]))
                continue
            saved = await self._saved.resolve(part["name"], part["version"], "")
            if saved is None:
                raise PlanningError(f"{part['name']}@{part['version']} is no longer in the library")
            parts.append(from_saved(saved))
        return combine(template["name"], parts)


def _has_saved(template: LibraryTemplate) -> bool:
    return any(part["source"] == "saved" for part in template.as_parts())
