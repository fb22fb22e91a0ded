"""Policy over lines: the configuration sections a template may touch, and the lines outside.

A section pattern is a path of levels separated by " / ", each a glob matched against a whole
line (case-blind, runs of spaces as one): `router ospf *` is that section and everything under
it; `interface * / ip ospf *` lets a template enter any interface but touch only its `ip ospf`
lines; `*` is the whole configuration (a rollback). A rendered line's path is the section
headers above it (by indentation) and the line itself. A line is inside when a pattern matches
its path's first levels (it is at or under the pattern), or when its path is the first levels
of a pattern (a header on the way down).

An LLM's template declares its sections (the reviewer sees them at the template gate); a
built-in or saved template's sections are read off its example rendering, each level cut after
its command word (`hostname R1` → `hostname *`, `router ospf 1` → `router ospf *`: a few
commands keep their keyword, a `no`/`set` prefix is kept).
Lines outside are blocked before any preview, and again before the push.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Mapping, Sequence

from workflow.model import TemplateProposal

_VALUE = re.compile(r"[\d/.:\"'{]")  # a word holding a number, address, path or quote is a value


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


def outside_sections(lines: Sequence[str], sections: Sequence[str]) -> list[tuple[int, str]]:
    """(1-based number, line) of every line no section pattern covers."""
    patterns = [_levels(pattern) for pattern in sections]
    return [
        (number, lines[number - 1])
        for number, path in enumerate(line_paths(lines), start=1)
        if not any(_inside(path, pattern) for pattern in patterns)
    ]


_PREFIXES = ("no", "default", "undo", "set", "delete")
# Commands whose second word is a keyword, not a value (`ip ospf`, `snmp-server community`).
_HEADS = frozenset(
    (
        "router", "ip", "ipv6", "snmp-server", "snmp-agent", "ntp", "switchport",
        "spanning-tree", "standby", "vrrp", "port", "dns", "timers", "bgp", "header",
        "system", "routing-options",
    )
)  # fmt: skip


def _generalize(line: str) -> str:
    """`router ospf 1` → `router ospf *`, `description to R2` → `description *`."""
    words = line.split()
    if len(words) > 1 and words[0] in _PREFIXES:
        return f"{words[0]} {_generalize(' '.join(words[1:]))}"
    keep = 2 if words[0] in _HEADS and len(words) > 1 and not _VALUE.search(words[1]) else 1
    return " ".join(words[:keep]) + (" *" if len(words) > keep else "")


def inferred_sections(renderings: Iterable[Sequence[str]]) -> list[str]:
    """The sections an example rendering touches, each level cut at its first value."""
    found: dict[str, None] = {}
    for lines in renderings:
        for path in line_paths(lines):
            found[" / ".join(_generalize(level) for level in path)] = None
    return list(found)


def section_errors(sections: object) -> list[str]:
    """What is wrong with a declared `sections` list (an LLM's answer)."""
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
    """(the sections the template may touch, what is wrong): an LLM's template declares them
    and its example must keep to them; others are read off their example rendering."""
    if proposal["source"] != "llm":
        return proposal.get("sections") or inferred_sections(examples.values()), []
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
