"""The built-in template library: one YAML file per template under `templates/`.

A file holds `description`, `keywords` (for matching plain requests), `phrases` (request words
that set a parameter: "area 0" -> area=0), `derive` (a name in `derive.DERIVERS`),
`params_schema`, `example_params`, `sections` (the configuration sections it may touch, format
in `workflow.safety.sections`), `templates` (vendor family -> Jinja2 source) and optionally
`post_checks` (what must hold after the push; format in `workflow.postcheck_spec`) and `allow`
(deny-list rule ids or families it may break; `workflow.safety.allowances`).
"""

from __future__ import annotations

import copy
import difflib
import functools
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

import yaml

from base.errors import PlanningError, TemplateError
from workflow.denylist.platform_rules import allowance_errors
from workflow.hashing import content_sha256
from workflow.library.derive import DERIVERS
from workflow.model import ParamSpec, TemplatePart, TemplateProposal
from workflow.postcheck_spec import PostChecks, parse_post_checks, post_check_errors
from workflow.safety.sections import section_errors

__all__ = ["Catalog", "LibraryTemplate", "load_catalog", "template_sha256"]

_REQUIRED_KEYS = (
    "description",
    "keywords",
    "derive",
    "params_schema",
    "example_params",
    "sections",
    "templates",
)


@dataclass(frozen=True)
class LibraryTemplate:
    name: str
    description: str
    keywords: tuple[str, ...]
    phrases: Mapping[str, str]  # request word -> parameter it sets
    derive: str
    params_schema: Mapping[str, ParamSpec]
    example_params: Mapping[str, Any]
    templates: Mapping[str, str]  # vendor family -> Jinja2 source
    sections: tuple[str, ...]  # the configuration sections it may touch (workflow.safety.sections)
    # what it is made of, when not one built-in template (saved versions, combinations)
    parts: tuple[TemplatePart, ...] = ()
    post_checks: PostChecks | None = None  # what must hold after the push
    allow: tuple[str, ...] = ()  # deny-list rules it may break (workflow.safety.allowances)

    @property
    def families(self) -> tuple[str, ...]:
        return tuple(self.templates)

    def as_parts(self) -> list[TemplatePart]:
        if self.parts:
            return list(self.parts)
        sha256 = template_sha256(
            self.name,
            self.description,
            self.templates,
            self.params_schema,
            self.example_params,
            self.post_checks,
            self.sections,
            self.allow,
        )
        part = TemplatePart(
            name=self.name, version=None, sha256=sha256, source="builtin", derive=self.derive
        )
        if self.allow:
            part["allow"] = list(self.allow)
        return [part]

    def score(self, text: str) -> int:
        """How well a request matches: words of every keyword found as whole words."""
        lowered = f" {' '.join(re.findall(r'[a-z0-9-]+', text.casefold()))} "
        return sum(len(kw.split()) for kw in self.keywords if f" {kw} " in lowered)


def template_sha256(
    name: str,
    description: str,
    templates: Mapping[str, str],
    params_schema: Mapping[str, Any],
    example_params: Mapping[str, Any],
    post_checks: PostChecks | None = None,
    sections: Sequence[str] = (),
    allow: Sequence[str] = (),
) -> str:
    """The identity of a template's content: what renders, what the reviewer reads, what it may
    touch, what deny-list rules it may break and what is checked after the push (a template
    saved before post-checks, declared sections or allowances keeps the hash it had)."""
    content: dict[str, Any] = {
        "name": name,
        "description": description,
        "templates": dict(templates),
        "params_schema": dict(params_schema),
        "example_params": dict(example_params),
    }
    if post_checks:
        content["post_checks"] = dict(post_checks)
    if sections:
        content["sections"] = list(sections)
    if allow:
        content["allow"] = list(allow)
    return content_sha256(content)


def normalize_name(name: str) -> str:
    """How names are compared: case-blind, `-` as `_`, no spaces around `+` (`a + b@2`)."""
    return re.sub(r"\s*\+\s*", "+", name.strip().casefold().replace("-", "_"))


def _load_template(name: str, text: str) -> LibraryTemplate:
    data = yaml.safe_load(text)
    missing = [key for key in _REQUIRED_KEYS if key not in (data or {})]
    if missing:
        raise TemplateError(f"library template {name}.yaml lacks {', '.join(missing)}")
    if data["derive"] not in DERIVERS:
        raise TemplateError(f"library template {name}.yaml: unknown derive {data['derive']!r}")
    post_checks, errors = parse_post_checks(data.get("post_checks"))
    errors = errors or post_check_errors(post_checks, data["params_schema"])
    errors += section_errors(data["sections"])
    errors += allowance_errors(data.get("allow", []))
    if errors:
        raise TemplateError(f"library template {name}.yaml: {'; '.join(errors)}")
    return LibraryTemplate(
        name=name,
        description=data["description"],
        keywords=tuple(kw.casefold() for kw in data["keywords"]),
        phrases=data.get("phrases") or {},
        derive=data["derive"],
        params_schema=data["params_schema"],
        example_params=data["example_params"],
        templates=data["templates"],
        sections=tuple(data["sections"]),
        post_checks=post_checks,
        allow=tuple(data.get("allow", ())),
    )


class Catalog:
    def __init__(self, templates: Sequence[LibraryTemplate]) -> None:
        self._templates = {template.name: template for template in templates}

    def names(self) -> list[str]:
        return sorted(self._templates)

    def get(self, name: str) -> LibraryTemplate:
        key = normalize_name(name)
        if key in self._templates:
            return self._templates[key]
        close = difflib.get_close_matches(key, self.names(), n=3, cutoff=0.5)
        hint = f" Did you mean {' or '.join(close)}?" if close else ""
        raise PlanningError(
            f"There is no library template {name!r}.{hint} Available: {', '.join(self.names())}."
        )

    def match(self, text: str) -> list[LibraryTemplate]:
        """Templates whose keywords occur in `text`, best first (ties keep catalog order)."""
        scored = [(template.score(text), template) for template in self._templates.values()]
        return [t for score, t in sorted(scored, key=lambda pair: -pair[0]) if score > 0]

    def as_proposal(
        self, name: str, targets: Sequence[str], families: Collection[str] | None = None
    ) -> TemplateProposal:
        """The template as a proposal; `families` keeps only the vendor variants the targets use."""
        template = self.get(name)
        variants = {
            family: source
            for family, source in template.templates.items()
            if families is None or family in families
        }
        proposal = TemplateProposal(
            name=template.name,
            description=template.description,
            templates=variants,
            params_schema=copy.deepcopy(dict(template.params_schema)),
            example_params=copy.deepcopy(dict(template.example_params)),
            targets=list(targets),
            source="library",
            parts=template.as_parts(),
            sections=list(template.sections),
        )
        if template.post_checks:
            proposal["post_checks"] = copy.deepcopy(template.post_checks)
        if template.allow:
            proposal["allow"] = list(template.allow)
        return proposal


@functools.cache
def load_catalog() -> Catalog:
    """Every template shipped in workflow/library/templates (read once per process)."""
    folder = resources.files("workflow.library") / "templates"
    templates = [
        _load_template(entry.name.removesuffix(".yaml"), entry.read_text(encoding="utf-8"))
        for entry in sorted(folder.iterdir(), key=lambda e: e.name)
        if entry.name.endswith(".yaml")
    ]
    return Catalog(templates)
