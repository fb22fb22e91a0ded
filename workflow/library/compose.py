"""Templates named in a request (`apply a@2 + b to …`), saved versions as library templates, and
several templates combined into one, in order. Pure functions over plain data.

Combining concatenates each vendor family's sources in the order given, so the change renders,
shows, hashes and deny-list-checks the combination as one configuration per device. Parameters
share one namespace: two parts may take the same parameter only with the same spec (it then
has one value for both); anything else is refused, naming the parameter.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Literal, TypeVar

from base.errors import PlanningError
from workflow.library.catalog import LibraryTemplate, normalize_name, template_sha256
from workflow.model import ParamSpec, SavedTemplate, TemplatePart, TemplateProposal
from workflow.postcheck_spec import combine_post_checks

__all__ = ["part_label", "proposal_parts"]

V = TypeVar("V")
_SPEC = re.compile(r"^\s*apply\s+([\w-]+(?:@\d+)?(?:\s*\+\s*[\w-]+(?:@\d+)?)*)", re.IGNORECASE)
_PART = re.compile(r"^([\w-]+)(?:@(\d+))?$")

TemplateName = tuple[str, int | None]  # (name, version or None for "pinned, else latest")


def applied_names(text: str) -> tuple[str, list[TemplateName]] | None:
    """(the spec as written, its parts) of `apply <spec> …`, or None."""
    match = _SPEC.match(text)
    if match is None:
        return None
    spec = normalize_name(match.group(1))
    parts = []
    for word in spec.split("+"):
        part = _PART.match(word)
        assert part is not None, f"{word!r} passed the apply pattern"
        parts.append((part.group(1), int(part.group(2)) if part.group(2) else None))
    return spec, parts


def mentions(text: str, name: str) -> bool:
    """Whether `text` names `name` as whole words (`lab_ospf` matches "lab ospf" too)."""
    words = f" {' '.join(re.findall(r'[a-z0-9]+', text.casefold()))} "
    return f" {' '.join(re.findall(r'[a-z0-9]+', name.casefold()))} " in words


def saved_part(saved: SavedTemplate) -> TemplatePart:
    part = TemplatePart(
        name=saved.name,
        version=saved.version,
        sha256=saved.sha256,
        source="saved",
        derive=saved.derive,
    )
    if saved.allow:
        part["allow"] = list(saved.allow)
    return part


def from_saved(saved: SavedTemplate) -> LibraryTemplate:
    """A saved version, usable wherever a library template is (planner, derivers). A version
    saved before templates declared their sections is refused, naming the fix: nothing is
    guessed about what it may touch (versions never change, so a new one is saved)."""
    if not saved.sections:
        label = f"{saved.name}@{saved.version}"
        raise PlanningError(
            f"{label} declares no `sections` (it was saved before templates declared what they "
            f"may touch): `labbot templates show {label}`, add `sections:` to that YAML and "
            f"save it again with `labbot templates save FILE.yaml --name {saved.name}`"
        )
    return LibraryTemplate(
        name=saved.name,
        description=saved.description,
        keywords=(" ".join(re.findall(r"[a-z0-9]+", saved.name.casefold())),),
        phrases=dict(saved.phrases),
        derive=saved.derive,
        params_schema=dict(saved.params_schema),
        example_params=dict(saved.example_params),
        templates=dict(saved.templates),
        sections=tuple(saved.sections),
        parts=(saved_part(saved),),
        post_checks=saved.post_checks,
        allow=tuple(saved.allow),
    )


def combine(name: str, parts: Sequence[LibraryTemplate]) -> LibraryTemplate:
    """One template rendering `parts` in order; a single part keeps its content as it is."""
    if len(parts) == 1:
        return dataclasses.replace(parts[0], name=name, parts=tuple(parts[0].as_parts()))
    names = " + ".join(p.name for p in parts)
    families = [f for f in parts[0].templates if all(f in p.templates for p in parts[1:])]
    if not families:
        raise PlanningError(
            f"{names}: no vendor family has all of these templates; combine templates that "
            "share a vendor (see `templates NAME` for each one's vendors)"
        )
    return LibraryTemplate(
        name=name,
        description="; ".join(p.description for p in parts),
        keywords=(),
        phrases=_first_wins(p.phrases for p in parts),
        derive="+".join(p.derive for p in parts),
        params_schema=_merged_schema(parts),
        example_params=_first_wins(p.example_params for p in parts),
        templates={f: "".join(_ended(p.templates[f]) for p in parts) for f in families},
        sections=tuple(dict.fromkeys(s for p in parts for s in p.sections)),
        parts=tuple(part for p in parts for part in p.as_parts()),
        post_checks=combine_post_checks(p.post_checks for p in parts),
        allow=tuple(dict.fromkeys(entry for p in parts for entry in p.allow)),
    )


def _ended(source: str) -> str:
    return source if source.endswith("\n") else source + "\n"


def _merged_schema(parts: Sequence[LibraryTemplate]) -> dict[str, ParamSpec]:
    schema: dict[str, ParamSpec] = {}
    owner: dict[str, str] = {}
    for part in parts:
        for key, spec in part.params_schema.items():
            if key in schema and schema[key] != spec:
                raise PlanningError(
                    f"{owner[key]} and {part.name} both take a parameter `{key}`, meaning "
                    "different things; apply them as separate changes"
                )
            schema.setdefault(key, spec)
            owner.setdefault(key, part.name)
    return schema


def _first_wins(mappings: Iterable[Mapping[str, V]]) -> dict[str, V]:
    """The mappings merged; a key keeps the value of the first part that has it."""
    merged: dict[str, V] = {}
    for mapping in mappings:
        for key, value in mapping.items():
            merged.setdefault(key, value)
    return merged


def proposal_parts(proposal: TemplateProposal) -> list[TemplatePart]:
    """Which templates a proposal uses; one written for the change is its own "llm" part; a
    rollback (literal lines) uses none."""
    if proposal.get("parts"):
        return list(proposal["parts"])
    if proposal["source"] == "rollback":
        return []
    sha256 = template_sha256(
        proposal["name"],
        proposal["description"],
        proposal["templates"],
        proposal["params_schema"],
        proposal["example_params"],
        proposal.get("post_checks"),
        proposal.get("sections", ()),
    )
    source: Literal["builtin", "llm"] = "llm" if proposal["source"] == "llm" else "builtin"
    part = TemplatePart(
        name=proposal["name"], version=None, sha256=sha256, source=source, derive="none"
    )
    return [part]


def part_label(part: TemplatePart) -> str:
    """`lab_ospf@2`, or `ospf (built-in)` / `custom (LLM)`."""
    if part["version"] is not None:
        return f"{part['name']}@{part['version']}"
    kind = {"builtin": "built-in", "llm": "LLM", "saved": "saved"}[part["source"]]
    return f"{part['name']} ({kind})"
