"""Policy over lines: the configuration sections a template may touch, judged where lines land.

A section pattern is a path of levels separated by " / ", each a glob matched against a whole
line (case-blind, runs of spaces as one), each starting with a literal word: `*` is not a
section. A pattern admits exactly its levels: `router ospf * / network *` admits the header
`router ospf 1` and its `network` lines, nothing else under it (children are declared, never
implied). A path is inside a pattern when it is as long as the pattern or shorter (a header on
the way down) and every level matches.

A line's path is read twice:
- as written: the section headers above it by indentation. So that indentation can say where a
  line is meant to go, rendered lines are laid out plainly (`layout_problems`): indentation is
  ASCII spaces only, and mode changes (`exit`, `end`, `!`, `do …`), banners other than one
  closed on its own line, and line continuations are refused;
- as landed: the device's own before/after configuration diff (`workflow.devices.diffing.
  landed_paths`), on the template's twin before the params gate and on each device after the
  push. IOS drops a command its sub-mode does not know to global configuration: there the line
  is global, whatever its indentation said.

Every template declares its sections — a built-in or saved one in its YAML (`sections:`), an
LLM's in its answer — and they are part of its sha256; the reviewer sees them at the template
gate. A rollback has none: it restores the backup taken before a change (`is_restore`), its
lines come from that backup (never from a planner) and are pushed exactly as approved.
"""

from __future__ import annotations

import fnmatch
import functools
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from base.grammar import grammar_for
from workflow.model import TemplateProposal

__all__ = [
    "declared_sections",
    "example_section_errors",
    "is_restore",
    "line_places",
    "misplaced_landings",
    "misplaced_lines",
    "outside_errors",
    "section_errors",
]

Why = Literal[
    "outside",
    "lands",
    "unknown",
    "unplaced",
    "indent",
    "whitespace",
    "mode",
    "do",
    "banner",
    "continuation",
]
WHY_TEXT: dict[Why, str] = {
    "outside": "is outside the sections the template may touch",
    "lands": "is not a command of the mode it is written in: the device runs it in an "
    "enclosing mode, outside the sections the template may touch",
    "unknown": "is a command labbot's model of {model} knows in no mode on the way, so "
    "labbot cannot tell where the device would run it (write it as the command reference "
    "spells it, in the mode that takes it, or push it by hand)",
    "unplaced": "is written under a sub-mode on a platform labbot has no mode model of, so "
    "labbot cannot tell where the device would run it (write global lines only)",
    "indent": "is indented with something other than ASCII spaces",
    "whitespace": "holds a whitespace or invisible character other than an ASCII space",
    "mode": "changes the CLI mode (exit, end, !, quit, return); indentation says the sections",
    "do": "runs an exec command from configuration mode (do …)",
    "banner": "is a banner not closed on its own line (the device would read the next lines "
    "as its text)",
    "continuation": "continues on the next line (ends with a backslash)",
}
_GLOB = frozenset("*?[]")
_SEQUENCE = re.compile(r"^\d+ (?=\D)")  # `10 permit …`: a list entry's place, not a command
_INVISIBLE = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp", "Zs"})
_MODE_WORDS = ("exit", "end", "quit", "return")  # and their abbreviations
_JUNOS_MOVES = frozenset({"edit", "top", "up"})  # Junos: move in the hierarchy
_EXEC_PREFIXES = frozenset({"do", "run"})  # IOS-like, Junos: an exec command from config mode
# `banner motd ^text^`: the delimiter is the first character after the keyword, as on IOS; the
# text must not hold it (the device ends the banner at its second appearance)
_ONE_LINE_BANNER = re.compile(r"^(banner|header)( [a-z-]+)+ (?P<d>[^\sa-z0-9])(?P<text>.*)(?P=d)$")


@dataclass(frozen=True)
class Misplaced:
    """A line refused by the sections: `number` (1-based; 0 for a landed line), the line as
    written, why, and where it is (its path: headers above it, then itself)."""

    number: int
    line: str
    why: Why
    place: tuple[str, ...]
    model: str = ""  # "unknown": the platform whose mode model knows it nowhere

    def __str__(self) -> str:
        where = f"line {self.number} " if self.number else ""
        at = "lands at" if not self.number or self.why == "lands" else "written under"
        place = f" ({at}: {' > '.join(self.place)})" if len(self.place) > 1 else ""
        if self.why in ("lands", "unknown"):
            at = "lands at" if self.why == "lands" else "typed in"
            place = f" ({at}: {' > '.join(self.place[:-1]) or 'global'})"
        why = WHY_TEXT[self.why].format(model=self.model)
        return f"{where}`{self.line.strip()}` {why}{place}"


def _flat(text: str) -> str:
    return " ".join(text.split()).casefold()


def line_paths(lines: Sequence[str]) -> list[list[str]]:
    """Each line's path as written: the headers above it (less indented lines before it),
    then itself."""
    stack: list[tuple[int, str]] = []
    paths = []
    for line in lines:
        depth = len(line) - len(line.lstrip())
        while stack and stack[-1][0] >= depth:
            stack.pop()
        text = " ".join(line.split())
        paths.append([header for _, header in stack] + [text])
        stack.append((depth, text))
    return paths


Pattern = tuple[re.Pattern[str], ...]  # a section pattern's levels, each a compiled glob


def _patterns(sections: Sequence[object]) -> tuple[Pattern, ...]:
    """The declared sections that are patterns, each level compiled once (`fnmatchcase`'s
    own regex): a template's sections judge every line of every device at push time. What is
    not text is no pattern (and cannot be a cache key)."""
    return _compiled(tuple(section for section in sections if isinstance(section, str)))


@functools.lru_cache(maxsize=256)
def _compiled(sections: tuple[str, ...]) -> tuple[Pattern, ...]:
    return tuple(
        tuple(re.compile(fnmatch.translate(_flat(level))) for level in pattern.split(" / "))
        for pattern in sections
        if not _pattern_problem(pattern)
    )


def _inside(path: Sequence[str], pattern: Pattern) -> bool:
    return len(path) <= len(pattern) and all(
        glob.match(level) for level, glob in zip(path, pattern, strict=False)
    )


def _admitted(path: Sequence[str], patterns: Sequence[Pattern]) -> bool:
    levels = [_flat(path[0]), *(_SEQUENCE.sub("", _flat(level)) for level in path[1:])]
    return any(_inside(levels, pattern) for pattern in patterns)


def declared_sections(template: Mapping[str, Any]) -> Sequence[str] | None:
    """The sections `template` declared ([] = none: every line is outside); None for a template
    proposed before templates declared sections (a gate left pending by release 0.1.0): its
    lines were shown to the approvers who decide it now, the deny-list still applies and what
    lands is checked after the push, where every line counts as outside."""
    sections = template.get("sections")
    return None if sections is None else list(sections)


def is_restore(template: Mapping[str, Any]) -> bool:
    """A rollback: the lines restore a device's backup from before a change (no sections)."""
    return template.get("source") == "rollback"


def layout_problems(lines: Sequence[str]) -> list[Misplaced]:
    """Rendered lines whose place the indentation cannot tell (see the module docstring)."""
    found = []
    for number, (line, path) in enumerate(zip(lines, line_paths(lines), strict=True), start=1):
        why = _layout_problem(line)
        if why is not None:
            found.append(Misplaced(number, line, why, tuple(path)))
    return found


def _layout_problem(line: str) -> Why | None:
    body = line.lstrip(" ")
    if body[:1] and _unclear(body[0]):
        return "indent"
    if any(_unclear(ch) for ch in line):
        return "whitespace"
    words = _flat(body).split() or [""]
    first = words[0]
    if first.startswith(("!", "#", "exit-")) or first in _JUNOS_MOVES or _abbreviates(first):
        return "mode"
    if first in _EXEC_PREFIXES:
        return "do"
    if (first.startswith("ba") and "banner".startswith(first)) or first == "header":
        return None if line == body and _closed_banner(_flat(body)) else "banner"
    if body.rstrip().endswith("\\"):
        return "continuation"
    return None


def _unclear(ch: str) -> bool:
    """Whitespace other than an ASCII space, or a character that shows nothing (control,
    format, separator): the device may read it otherwise than the reviewer sees it."""
    return ch != " " and (ch.isspace() or unicodedata.category(ch) in _INVISIBLE)


def _closed_banner(text: str) -> bool:
    match = _ONE_LINE_BANNER.match(text)
    return match is not None and match["d"] not in match["text"]


def _abbreviates(word: str) -> bool:
    return len(word) >= 2 and any(mode.startswith(word) for mode in _MODE_WORDS)


def misplaced_lines(
    lines: Sequence[str], sections: Sequence[str], family: str | None = None
) -> list[Misplaced]:
    """Rendered lines refused as written (laid out so their place is unclear, or outside) and,
    for a platform `family`, where its mode model lands them (`landing_problems`)."""
    found = {problem.number: problem for problem in layout_problems(lines)}
    patterns = _patterns(sections)
    for number, path in enumerate(line_paths(lines), start=1):
        if number not in found and not _admitted(path, patterns):
            found[number] = Misplaced(number, lines[number - 1], "outside", tuple(path))
    if family is not None:
        for problem in landing_problems(lines, patterns, family):
            found.setdefault(problem.number, problem)
    return sorted(found.values(), key=lambda m: m.number)


# Platforms whose lines are placed by something other than a grammar here: FRR on a real FRR
# twin (workflow.phases.landing), Junos `set` lines by the path they name.
_PLACED_ELSEWHERE = frozenset({"frr", "juniper_junos", "juniper"})


def landing_problems(
    lines: Sequence[str], patterns: Sequence[Pattern], family: str
) -> list[Misplaced]:
    """Lines the platform's mode grammar (base.grammar, closed world) lands outside the
    sections, or knows in no mode; on a platform without a model, any line under a sub-mode."""
    grammar = grammar_for(family)
    if grammar is None:
        if family in _PLACED_ELSEWHERE:
            return []
        return [
            Misplaced(number, line, "unplaced", (line.strip(),))
            for number, line in enumerate(lines, start=1)
            if line[:1].isspace() and line.strip()
        ]
    return [
        Misplaced(number, line, "lands" if where.known else "unknown", where.path, grammar.name)
        for number, line, where in grammar.numbered(lines)
        if not where.known or not _admitted(where.path, patterns)
    ]


def line_places(lines: Sequence[str], family: str) -> list[str] | None:
    """Where each non-blank line lands (`global`, `interface GigabitEthernet0/1`), by the
    platform's mode grammar; None without one."""
    grammar = grammar_for(family)
    if grammar is None:
        return None
    return [
        where.place if where.known else f"unknown to labbot's {grammar.name} model"
        for _, _, where in grammar.numbered(lines)
    ]


def misplaced_landings(
    landed: Sequence[Sequence[str]], sections: Sequence[str] | None
) -> list[Misplaced]:
    """Lines of a device's own configuration diff (paths; a removed line is `no <line>` at its
    place) outside the sections; with none declared (None), every line is outside."""
    patterns = () if sections is None else _patterns(sections)
    return [
        Misplaced(0, path[-1], "outside", tuple(path))
        for path in landed
        if not _admitted(path, patterns)
    ]


def outside_sections(lines: Sequence[str], sections: Sequence[str]) -> list[tuple[int, str]]:
    """(1-based number, line) of every line refused as written (`misplaced_lines`)."""
    return [(m.number, m.line) for m in misplaced_lines(lines, sections)]


def section_errors(sections: object) -> list[str]:
    """What is wrong with a declared `sections` list."""
    if not isinstance(sections, list) or not sections:
        return [
            "declare `sections`: the configuration sections the template may touch, down to "
            "the lines it writes, e.g. ['router ospf * / network *', 'interface * / ip ospf *']"
        ]
    return [problem for s in sections if (problem := _pattern_problem(s))]


def _pattern_problem(pattern: object) -> str | None:
    if not isinstance(pattern, str) or not pattern.strip() or "\n" in pattern:
        return f"section {pattern!r} is not a non-empty text"
    for level in pattern.split(" / "):
        first = _flat(level).split()[:1]
        if not first or _GLOB & set(first[0]):
            return (
                f"section {pattern!r}: every level must start with a literal word (`*` is not "
                "a section; declare what it holds, e.g. 'router ospf * / network *')"
            )
    return None


def outside_errors(
    lines: Sequence[str], sections: Sequence[str], family: str | None = None
) -> list[str]:
    """Rendered lines refused as written or as landed, as errors naming them and the sections."""
    return [
        f"{problem} ({'; '.join(sections)})" for problem in misplaced_lines(lines, sections, family)
    ]


def example_section_errors(
    proposal: TemplateProposal, examples: Mapping[str, Sequence[str]]
) -> tuple[list[str], list[str]]:
    """(the sections the template may touch, what is wrong): none declared, a pattern that is
    not a section, or an example line refused as written. A rollback restores a backup and
    declares none."""
    if is_restore(proposal):
        return [], []
    declared = proposal.get("sections")
    problems = section_errors(declared)
    if problems or declared is None:
        return [], problems
    return declared, [
        f"{family} example {problem} ({'; '.join(declared)})"
        for family, lines in sorted(examples.items())
        for problem in misplaced_lines(lines, declared, family)
    ]
