"""The deny-list: rendered lines that must never reach a device, checked at preview and at push.

A rule (tables in workflow/deny_rules.py) is written the way vendor manuals abbreviate commands:
``wr[ite] er[ase]`` matches ``write erase``, ``wr er``, ``wri eras``. A line matches when its
first words are abbreviations of the rule's words, so ``description reload`` (first word
"description") is allowed, ``rel`` is not.

Before matching, a line is NFKC-normalized, case-folded and split on any whitespace (tabs and
unicode separators included), and exec-from-config prefixes are removed (``do`` on IOS-like
families, ``run`` on Junos). Commands hidden in aliases, EEM applets and kron policies
(``alias exec x reload``, ``action 1 cli command "reload"``) are checked too. Lines with control
characters (other than tab) are refused: they can split one line into two on the device. A line
naming a remote file-transfer URL (``tftp://…``, ``scp:``) anywhere is refused: it exports or
imports files (``archive`` ``path tftp:``, ``show run | redirect ftp://…``).

Management access (a heuristic, since the management interface is not always known): section
rules hold inside an ``interface`` section whose name is a management interface (Management1,
``Management 1``, mgmt0, MEth0/0/1, fxp0, em0, me0) and inside terminal lines (``line vty``,
``line con 0``, VRP ``user-interface``). Sections end at the next interface/line/router header
or at ``exit``, ``!``, ``quit`` or ``end``.

``undebug``/``no debug`` are allowed: they only turn debugging off.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TypedDict

from base.errors import ConfigError
from workflow.deny_rules import (
    FAMILIES,
    LINE_RULES,
    MGMT_INTERFACE_RULES,
    MGMT_WORDS,
    PREFIXES,
    REMOTE_SCHEMES,
    RULE_SETS,
)
from workflow.model import platform_family

_EMBEDDED = (
    re.compile(r"^alias \S+ \S+ (?P<cmd>.+)$"),
    re.compile(r"^action \S+ cli command \"?(?P<cmd>[^\"]+)\"?"),
    re.compile(r"^action \S+ (?!cli\b)(?P<cmd>.+)$"),  # EEM actions such as `action 1.0 reload`
    re.compile(r"^cli (?P<cmd>.+)$"),
)


@dataclass(frozen=True)
class Violation:
    """One refused line: `line` as rendered, `rule` that matched, `reason` for the user."""

    line: str
    rule: str
    reason: str
    number: int = 0  # 1-based position in the checked lines

    def __str__(self) -> str:
        return f"line {self.number} `{self.line.strip()}` is refused ({self.rule}): {self.reason}"


_NEGATIONS = ("no", "default", "undo")


@dataclass(frozen=True)
class _Rule:
    spec: str
    words: tuple[tuple[str, str], ...]  # (shortest abbreviation, full word)
    whole_line: bool
    negatable: bool  # also holds under no/default/undo
    reason: str

    def matches(self, tokens: Sequence[str]) -> bool:
        if self._matches(tokens):
            return True
        return (
            self.negatable
            and bool(tokens)
            and _is_negation(tokens[0])
            and self._matches(tokens[1:])
        )

    def _matches(self, tokens: Sequence[str]) -> bool:
        if len(tokens) < len(self.words) or (self.whole_line and len(tokens) != len(self.words)):
            return False
        return all(_word_matches(tok, word) for tok, word in zip(tokens, self.words, strict=False))


def _is_negation(token: str) -> bool:
    return token == "no" or any(len(token) >= 3 and w.startswith(token) for w in _NEGATIONS[1:])


def _word_matches(token: str, word: tuple[str, str]) -> bool:
    head, full = word
    if head == "<mgmt>":
        return is_management_interface(token)
    if head == "<src>":  # any copy source but the running config (`copy run start` saves)
        return not _is_running_config(token)
    if head == "<any>":
        return True
    if head == "<remote>":
        return is_remote(token)
    return len(token) >= len(head) and full.startswith(token)


def is_remote(token: str) -> bool:
    """`tftp:`, `tftp://host/file`, `scp:`, or the bare scheme word of an interactive copy."""
    return token.partition(":")[0] in REMOTE_SCHEMES


def _names_remote_url(tokens: Sequence[str]) -> bool:
    return any(":" in tok and is_remote(tok) for tok in tokens)


def _is_running_config(token: str) -> bool:
    name = token.removeprefix("system:")
    return len(name) >= 3 and "running-config".startswith(name)


def is_management_interface(name: str) -> bool:
    """Management1, Ma1, mgmt0, MEth0/0/1, fxp0, em0, me0 (any case)."""
    match = re.match(r"([a-z-]+)\s*\d", name.casefold())
    if not match:
        return False
    alpha = match.group(1)
    return alpha in MGMT_WORDS or (len(alpha) >= 2 and "management".startswith(alpha))


def _parse_rule(spec: str, reason: str) -> _Rule:
    whole_line = spec.endswith("$")
    words = []
    for part in spec.lstrip("~").rstrip("$").split():
        head, _, tail = part.partition("[")
        words.append((head, head + tail.rstrip("]")))
    return _Rule(spec, tuple(words), whole_line, spec.startswith("~"), reason)


def matching_rule(line: str, rules: Sequence[tuple[str, str]]) -> tuple[str, str] | None:
    """The first (spec, reason) of `rules` — written like the deny-list's — that `line` matches
    (NFKC, case-folded, its `do` prefix removed), or None."""
    tokens = _strip_prefixes(_normalize(line), ("do",))
    found = (rule for rule in rules if _parse_rule(*rule).matches(tokens))
    return next(found, None)


def _normalize(line: str) -> list[str]:
    """Case-folded words; `Management 1` is joined into one word, as the device reads it."""
    tokens = unicodedata.normalize("NFKC", line).casefold().split()
    for i in range(len(tokens) - 2, -1, -1):
        joined = tokens[i] + tokens[i + 1]
        if tokens[i].isalpha() and tokens[i + 1][:1].isdigit() and is_management_interface(joined):
            tokens[i : i + 2] = [joined]
    return tokens


def _strip_prefixes(tokens: list[str], prefixes: Sequence[str]) -> list[str]:
    while tokens and tokens[0] in prefixes:
        tokens = tokens[1:]
    return tokens


_CONTROL = frozenset({"Cc", "Cf", "Zl", "Zp"})  # control, format, line and paragraph separators


def control_character(text: str, allowed: str = "") -> str | None:
    """The first character of `text` (not in `allowed`) that can split one line into two on a
    device or hide in it: a control, format, line or paragraph separator; None when none."""
    return next(
        (ch for ch in text if ch not in allowed and unicodedata.category(ch) in _CONTROL), None
    )


class _FamilyRules:
    """The rules of one family, indexed by the first two letters of their first word."""

    def __init__(self, sets: Sequence[str]) -> None:
        self.prefixes = tuple(p for name in sets for p in PREFIXES.get(name, ()))
        self.index: dict[str, list[_Rule]] = {}
        for name in sets:
            for spec, reason in RULE_SETS[name]:
                rule = _parse_rule(spec, reason)
                self.index.setdefault(rule.words[0][0][:2], []).append(rule)

    def match(self, tokens: list[str]) -> _Rule | None:
        tokens = _strip_prefixes(tokens, self.prefixes)
        if not tokens:
            return None
        candidates = list(self.index.get(tokens[0][:2], ()))
        if len(tokens) > 1 and _is_negation(tokens[0]):
            candidates += [r for r in self.index.get(tokens[1][:2], ()) if r.negatable]
        return next((rule for rule in candidates if rule.matches(tokens)), None)


_ALL_SETS = tuple(RULE_SETS)
_BY_FAMILY: dict[tuple[str, ...], _FamilyRules] = {}


def _rules_for(family: str) -> _FamilyRules:
    sets = FAMILIES.get(platform_family(family), _ALL_SETS)  # unknown family: every rule
    if sets not in _BY_FAMILY:
        _BY_FAMILY[sets] = _FamilyRules(sets)
    return _BY_FAMILY[sets]


class BlockedLine(TypedDict):
    """A deny-list hit as the params gate shows it."""

    line: str
    rule: str
    reason: str


class DenyList:
    """Built-in vendor rules plus `extra` regular expressions (settings: LABBOT_DENY_EXTRA)."""

    def __init__(self, extra: Sequence[str] = ()) -> None:
        self._extra: list[tuple[str, re.Pattern[str]]] = []
        for pattern in extra:
            try:
                self._extra.append((pattern, re.compile(pattern, re.IGNORECASE)))
            except re.error as exc:
                raise ConfigError(
                    f"LABBOT_DENY_EXTRA: {pattern!r} is not a valid regular expression ({exc})"
                ) from None

    def check(self, lines: Sequence[str], family: str) -> list[Violation]:
        """Every refused line with its reason; [] means the lines may be sent."""
        rules = _rules_for(family)
        found = [
            Violation(line, rule, reason, number)
            for number, line in enumerate(lines, start=1)
            for rule, reason in self._line_violations(line, rules)
        ]
        found.extend(_management_violations(lines, rules))
        found.sort(key=lambda v: v.number)
        return found

    def blocked_lines(self, lines: Sequence[str], family: str) -> list[BlockedLine]:
        """`check`, as the params gate shows each hit."""
        return [
            BlockedLine(line=v.line, rule=v.rule, reason=v.reason)
            for v in self.check(lines, family)
        ]

    def _line_violations(self, line: str, rules: _FamilyRules) -> Iterator[tuple[str, str]]:
        if control_character(line, allowed="\t"):
            yield "control-character", "contains a control or line-separator character"
        tokens = _normalize(line)
        rule = rules.match(tokens)
        if rule is None:
            text = " ".join(_strip_prefixes(tokens, rules.prefixes))
            for hiding in _EMBEDDED:
                embedded = hiding.match(text)
                inner = rules.match(_normalize(embedded.group("cmd"))) if embedded else None
                if inner is not None:
                    yield inner.spec, f"runs a hidden command that {inner.reason}"
                    break
        else:
            yield rule.spec, rule.reason
        if _names_remote_url(tokens):
            yield "remote-url", "sends or fetches files over the network (tftp, ftp, scp, http)"
        normalized = " ".join(tokens)
        for pattern, regex in self._extra:
            if regex.search(normalized) or regex.search(line):
                yield f"extra:{pattern}", "matches a site deny rule (LABBOT_DENY_EXTRA)"


_SECTION_END = ("exit", "!", "end", "router", "quit", "#")
_SECTION_RULES = {
    "management interface": (
        [_parse_rule(spec, "") for spec in MGMT_INTERFACE_RULES],
        "would cut off management access to the device",
    ),
    "terminal line": (
        [_parse_rule(spec, "") for spec in LINE_RULES],
        "changes who can log in on the console or vty lines, or how",
    ),
}


def _section_of(tokens: Sequence[str], current: str | None) -> str | None:
    """Which management-relevant section a line opens, keeps or closes."""
    if not tokens:
        return current
    first = tokens[0]
    if len(first) >= 3 and "interface".startswith(first):
        names = tokens[2:] if len(tokens) > 2 and tokens[1] == "range" else tokens[1:]
        return "management interface" if is_management_interface(" ".join(names)) else None
    if (len(first) >= 3 and "line".startswith(first)) or first.startswith("user-interface"):
        return "terminal line"
    if first in _SECTION_END:
        return None
    return current


def _management_violations(lines: Sequence[str], rules: _FamilyRules) -> list[Violation]:
    section: str | None = None
    found = []
    for number, line in enumerate(lines, start=1):
        tokens = _strip_prefixes(_normalize(line), rules.prefixes)
        new_section = _section_of(tokens, section)
        if new_section == section and section is not None:
            section_rules, reason = _SECTION_RULES[section]
            hit = next((r for r in section_rules if r.matches(tokens)), None)
            if hit is not None:
                found.append(Violation(line, f"{section}:{hit.spec}", reason, number))
        section = new_section
    return found
