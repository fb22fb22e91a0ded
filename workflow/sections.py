"""Policy over lines: the configuration sections a template may touch, and the lines outside.

A section pattern is a path of levels separated by " / ", each a glob matched against a whole
line (case-blind, runs of spaces as one): `router ospf *` is that section and everything under
it; `interface * / ip ospf *` lets a template enter any interface but touch only its `ip ospf`
lines; `*` is the whole configuration (a rollback). A rendered line's path is the section
headers above it (by indentation) and the line itself. A line is inside when a pattern matches
its path's first levels (it is at or under the pattern), or when its path is the first levels
of a pattern (a header on the way down).

Every template declares its sections — a built-in or saved one in its YAML (`sections:`), an
LLM's in its answer — and they are part of its sha256; the reviewer sees them at the template
gate. Lines outside are blocked before any preview, and again before the push.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping, Sequence
from typing import Any

from workflow.model import TemplateProposal


def _flat(text: str) -> str:
    return " ".join(text.split()).casefold()


def line_paths(lines: Sequence[str]) -> list[list[str]]:
    """Each line's path: the headers above it (less indented lines before it), then itself."""
    stack: list[tuple[int, str]] = []
    paths = []
    for line in lines:
        depth = len(line) - len(line.lstrip())
        while stack and stack[-1][0] >= depth:
            stack.pop()
        paths.append([text for _, text in stack] + [_flat(line)])
        stack.append((depth, _flat(line)))
    return paths


def _levels(pattern: str) -> list[str]:
    return [_flat(level) for level in pattern.split(" / ") if level.strip()]


def _inside(path: list[str], pattern: list[str]) -> bool:
    shared = min(len(path), len(pattern))
    return all(fnmatch.fnmatchcase(path[i], pattern[i]) for i in range(shared))


def declared_sections(template: Mapping[str, Any]) -> Sequence[str] | None:
    """The sections `template` declared ([] = none: every line is outside); None for a template
    proposed before templates declared sections (a gate left pending by release 0.1.0): its
    lines were shown to the approvers who decide it now, and the deny-list still applies."""
    sections = template.get("sections")
    return None if sections is None else list(sections)


def outside_sections(lines: Sequence[str], sections: Sequence[str]) -> list[tuple[int, str]]:
    """(1-based number, line) of every line no section pattern covers."""
    patterns = [_levels(pattern) for pattern in sections]
    return [
        (number, lines[number - 1])
        for number, path in enumerate(line_paths(lines), start=1)
        if not any(_inside(path, pattern) for pattern in patterns)
    ]


def section_errors(sections: object) -> list[str]:
    """What is wrong with a declared `sections` list."""
    if not isinstance(sections, list) or not sections:
        return [
            "declare `sections`: the configuration sections the template may touch, e.g. "
            "['router ospf *', 'interface * / ip ospf *']"
        ]
    return [f"section {s!r} is not a non-empty text" for s in sections if not _is_text(s)]


def _is_text(value: object) -> bool:
    return isinstance(value, str) and bool(value.strip()) and "\n" not in value


def outside_errors(lines: Sequence[str], sections: Sequence[str]) -> list[str]:
    """Rendered lines outside the template's sections, as errors naming them."""
    return [
        f"line {number} `{line.strip()}` is outside the sections the template may touch "
        f"({'; '.join(sections)})"
        for number, line in outside_sections(lines, sections)
    ]


def example_section_errors(
    proposal: TemplateProposal, examples: Mapping[str, Sequence[str]]
) -> tuple[list[str], list[str]]:
    """(the sections the template may touch, what is wrong): none declared, or an example line
    outside them. Every template declares its own (built-in and saved ones in their YAML, an
    LLM's in its answer, a rollback `*`)."""
    declared = proposal.get("sections")
    problems = section_errors(declared)
    if problems or declared is None:
        return [], problems
    return declared, [
        f"{family} example line {number} `{line.strip()}` is outside the declared sections "
        f"({'; '.join(declared)})"
        for family, lines in sorted(examples.items())
        for number, line in outside_sections(lines, declared)
    ]
