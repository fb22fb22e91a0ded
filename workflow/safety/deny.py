"""The deny-list: rendered lines that must never reach a device, checked at preview and at push.

The policy is per platform (tables by family in workflow/denylist/: management-plane access,
exfiltration, control-plane and routing kill switches, shells and files, destructive exec);
matching judges meaning, not text: abbreviations (`wr er`), case, `no`/`default`/`undo` forms,
extra whitespace, and the exec-from-config prefixes (`do` on IOS-like families, `run` on Junos).
Commands hidden in aliases, EEM applets and kron policies (``alias exec x reload``, ``action 1
cli command "reload"``) are checked too. A line naming a remote file-transfer URL (``tftp://…``,
``scp:``) anywhere is refused: it exports or imports files.

A line the policy cannot read is refused, never allowed: control characters (other than tab)
can split one line into two on the device; a character outside printable ASCII in a command
word (a look-alike letter, U+00A0 as indentation) may be read otherwise by the device; `?`
asks the device for help instead of configuring. On a device that may read 7 bits (IOS), a
description's character whose bytes read so are a control character or `?` is refused too
(rule `seven-bit`), but in a rollback restoring the line its device printed.

A template may allow rules explicitly (`allow:` in a built-in or saved template's YAML:
workflow/safety/allowances.py); an allowed hit is reported apart, so the gate shows it.
`undebug`/`no debug` are allowed: they only turn debugging off.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import NotRequired, TypedDict

from base.errors import ConfigError
from base.grammar import Placed, grammar_for
from workflow.denylist.inside import section_hit, section_of
from workflow.denylist.matching import (
    control_character,
    names_remote_url,
    normalize,
    parse,
    read_as_control,
    seven_bit_character,
    strip_prefixes,
    unreadable_character,
)
from workflow.denylist.platform_rules import PlatformRules, rules_for
from workflow.denylist.rules import (
    CONTROL,
    FAMILY_TITLES,
    HELP,
    REMOTE,
    SEVEN_BIT_TEXT,
    Family,
    Rule,
)

__all__ = ["BlockedLine", "DenyList", "matching_rule", "shown"]

_IOS_ALIAS = re.compile(r"^alias \S+ \S+ (?P<cmd>.+)$")  # alias MODE NAME COMMAND
_EOS_ALIAS = re.compile(r"^alias \S+ (?P<cmd>.+)$")  # alias NAME COMMAND
# How a policy's alias names the command it hides (IOS's elsewhere; both on an unknown platform):
# read otherwise, a name is taken for a command (`alias exec rel show reload`: `rel`)
_ALIASES = {"eos": (_EOS_ALIAS,), None: (_IOS_ALIAS, _EOS_ALIAS)}
_EMBEDDED = (
    re.compile(r"^action \S+ cli command \"?(?P<cmd>[^\"]+)\"?"),
    re.compile(r"^action \S+ (?!cli\b)(?P<cmd>.+)$"),  # EEM actions such as `action 1.0 reload`
    re.compile(r"^cli (?P<cmd>.+)$"),
)


@dataclass(frozen=True)
class Violation:
    """One refused line: `line` as rendered, the `rule` id that matched, its `family` and the
    `reason` for the user."""

    line: str
    rule: str
    reason: str
    number: int = 0  # 1-based position in the checked lines
    family: Family = "exec"
    allowable: bool = True
    restorable: bool = False  # a rollback may break it, by its id (workflow.safety.allowances)

    @property
    def explained(self) -> str:
        """`exfiltration, rule logging-host: sends the device's logs to another host`."""
        return f"{FAMILY_TITLES[self.family]}, rule {self.rule}: {self.reason}"

    def allowed_by(self, allow: Sequence[str]) -> bool:
        """Whether a template allowing `allow` (rule ids and families) may send this line."""
        if self.allowable:
            return self.rule in allow or self.family in allow
        return self.restorable and self.rule in allow

    def __str__(self) -> str:
        return f"line {self.number} `{self.line.strip()}` is refused ({self.explained})"


def _violation(line: str, rule: Rule, number: int, reason: str = "") -> Violation:
    reason = reason or rule.reason
    return Violation(line, rule.id, reason, number, rule.family, rule.allowable, rule.restorable)


def matching_rule(line: str, rules: Sequence[tuple[str, str]]) -> tuple[str, str] | None:
    """The first (spec, reason) of `rules` — written like the deny-list's — that `line` matches
    (NFKC, case-folded, its `do` prefix removed), or None."""
    tokens = strip_prefixes(normalize(line), ("do",))
    return next((rule for rule in rules if parse(rule[0]).matches(tokens)), None)


class BlockedLine(TypedDict):
    """A deny-list hit as the params gate shows it (`reason` names the family and rule)."""

    line: str
    rule: str
    reason: str
    family: NotRequired[str]


@dataclass(frozen=True)
class Verdict:
    """What the deny-list found: lines refused, and lines the template's allowances let pass."""

    refused: list[Violation]
    allowed: list[Violation]


class DenyList:
    """The platform policies plus `extra` regular expressions (settings: LABBOT_DENY_EXTRA,
    family `exec`, never allowable: the lab's own last word)."""

    def __init__(self, extra: Sequence[str] = ()) -> None:
        self._extra: list[tuple[str, re.Pattern[str]]] = []
        for pattern in extra:
            try:
                self._extra.append((pattern, re.compile(pattern, re.IGNORECASE)))
            except re.error as exc:
                raise ConfigError(
                    f"LABBOT_DENY_EXTRA: {pattern!r} is not a valid regular expression ({exc})"
                ) from None

    def judge(
        self,
        lines: Sequence[str],
        family: str,
        allow: Sequence[str] = (),
        management: str | None = None,
    ) -> Verdict:
        """Every hit, split into refused and allowed by `allow` (rule ids and families);
        `management`: the interface labbot reaches the device through, when known."""
        rules = rules_for(family)
        grammar = grammar_for(family)
        placed = grammar.numbered(lines) if grammar is not None else None
        spelled = _spelled(placed or [])
        found = [
            hit
            for number, line in enumerate(lines, start=1)
            for hit in self._line_violations(line, number, rules, spelled.get(number))
        ]
        found.extend(_section_violations(lines, rules, placed, management))
        found.sort(key=lambda v: v.number)
        allowed = [v for v in found if v.allowed_by(allow)]
        return Verdict([v for v in found if v not in allowed], allowed)

    def check(
        self,
        lines: Sequence[str],
        family: str,
        allow: Sequence[str] = (),
        management: str | None = None,
    ) -> list[Violation]:
        """Every refused line with its reason; [] means the lines may be sent."""
        return self.judge(lines, family, allow, management).refused

    def _line_violations(
        self, line: str, number: int, rules: PlatformRules, spelled: str | None = None
    ) -> Iterator[Violation]:
        """`spelled`: the line as the device expands it (its mode grammar), when it differs."""
        if control_character(line, allowed="\t"):
            yield _violation(line, CONTROL, number)
        if (char := unreadable_character(line)) is not None:
            seen = rules.seven_bit and read_as_control(char)
            why = SEVEN_BIT_TEXT.reason if seen else "which no command word has"
            reason = f"holds {char!r} (U+{ord(char):04X}), {why}"
            yield Violation(line, "non-ascii", reason, number, "unreadable", allowable=False)
        elif rules.seven_bit and (char := seven_bit_character(line)) is not None:
            yield _violation(
                line,
                SEVEN_BIT_TEXT,
                number,
                f"holds {char!r} (U+{ord(char):04X}), {SEVEN_BIT_TEXT.reason}",
            )
        if "?" in line:
            yield _violation(line, HELP, number)
        tokens = normalize(line)
        rule = rules.match(tokens)
        if rule is None and spelled is not None:
            rule = rules.match(normalize(spelled))
        if rule is None:
            yield from _embedded(line, number, tokens, rules)
        else:
            yield _violation(line, rule, number)
        if names_remote_url(tokens):
            yield _violation(line, REMOTE, number)
        normalized = " ".join(tokens)
        for pattern, regex in self._extra:
            if regex.search(normalized) or regex.search(line):
                reason = "matches a site deny rule (LABBOT_DENY_EXTRA)"
                yield Violation(line, f"extra:{pattern}", reason, number, "exec", allowable=False)


def shown(violation: Violation) -> BlockedLine:
    return BlockedLine(
        line=violation.line,
        rule=violation.rule,
        reason=violation.explained,
        family=violation.family,
    )


def _embedded(
    line: str, number: int, tokens: list[str], rules: PlatformRules
) -> Iterator[Violation]:
    """The command an alias, EEM action or kron `cli` line hides, when a rule refuses it."""
    text = " ".join(strip_prefixes(tokens, rules.prefixes))
    for hiding in (*_ALIASES.get(rules.policy, (_IOS_ALIAS,)), *_EMBEDDED):
        embedded = hiding.match(text)
        inner = rules.match(normalize(embedded.group("cmd"))) if embedded else None
        if inner is not None:
            yield _violation(line, inner, number, f"runs a hidden command that {inner.reason}")
            return


Placements = Sequence[tuple[int, str, Placed]]  # (number, line, where the grammar lands it)


def _spelled(placed: Placements) -> dict[int, str]:
    """Line number -> the line as the platform's mode grammar spells it out, where it differs
    (`ip rc remote-host …` is `ip rcmd remote-host …`)."""
    return {
        number: where.spelled
        for number, line, where in placed
        if where.known and where.spelled != " ".join(line.split())
    }


def _section_violations(
    lines: Sequence[str],
    rules: PlatformRules,
    placed: Placements | None,
    management: str | None = None,
) -> list[Violation]:
    """Lines that break a rule of the section they land in: where the platform's mode grammar
    places them (a line the mode does not take has left it), else by the headers above them."""
    if placed is not None:
        return _placed_section_violations(placed, rules, management)
    section: str | None = None
    found = []
    for number, line in enumerate(lines, start=1):
        tokens = strip_prefixes(normalize(line), rules.prefixes)
        new_section = section_of(tokens, section, management)
        if new_section == section and (rule := section_hit(section, tokens)) is not None:
            found.append(_violation(line, rule, number))
        section = new_section
    return found


def _placed_section_violations(
    placed: Placements, rules: PlatformRules, management: str | None
) -> list[Violation]:
    found = []
    for number, line, where in placed:
        if not where.headers:
            continue
        section = section_of(normalize(where.headers[0]), None, management)
        tokens = strip_prefixes(normalize(where.spelled), rules.prefixes)
        typed = strip_prefixes(normalize(line), rules.prefixes)
        rule = section_hit(section, tokens) or section_hit(section, typed)
        if rule is not None:
            found.append(_violation(line, rule, number))
    return found
