"""The deny-list: rendered lines that must never reach a device, checked at preview and at push.

A rule is written the way vendor manuals abbreviate commands: ``wr[ite] er[ase]`` matches
``write erase``, ``wr er``, ``wri eras``; the bracketed tail is optional, the head is the shortest
accepted abbreviation. A line matches when its first words are abbreviations of the rule's words,
so ``description reload`` (first word "description") is allowed, ``rel`` is not. ``$`` at the end
of a rule means the whole line (``de[lete]$``: Junos' bare ``delete`` wipes the configuration,
``delete interfaces ge-0/0/0`` is ordinary). ``<mgmt>`` stands for a management interface name,
``<src>`` for any copy source but the running config (saving with ``copy run start`` is fine).

Before matching, a line is NFKC-normalized, case-folded and split on any whitespace (tabs and
unicode separators included), and exec-from-config prefixes are removed (``do`` on IOS-like
families, ``run`` on Junos). Commands hidden in aliases, EEM applets and kron policies
(``alias exec x reload``, ``action 1 cli command "reload"``) are checked too. Lines with control
characters (other than tab) are refused: they can split one line into two on the device.

Management access (a heuristic, since the management interface is not always known): refused are
``shutdown``/``no ip address`` inside an ``interface`` section whose name is a management
interface (Management1, mgmt0, MEth0/0/1, fxp0, em0, me0), ``transport input none`` inside
``line vty``, and their Junos/VRP equivalents. Sections end at the next interface/line/router
header or at ``exit``, ``!`` or ``end``.

``undebug``/``no debug`` are allowed: they only turn debugging off.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from workflow.errors import ConfigError
from workflow.model import platform_family

_IOS_RULES = (
    ("rel[oad]", "reloads the device"),
    ("wr[ite] er[ase]", "erases the startup configuration"),
    ("er[ase]", "erases a file system or the startup configuration"),
    ("de[lete]", "deletes files from the device"),
    ("fo[rmat]", "formats a file system"),
    ("bo[ot]", "changes what the device boots"),
    ("no bo[ot]", "changes what the device boots"),
    ("config-r[egister]", "changes the boot behaviour (can skip the startup configuration)"),
    ("cr[ypto] k[ey] z[eroize]", "destroys the device's crypto keys"),
    ("de[bug]", "debugging can overload the device"),
    ("co[nfigure] r[eplace]", "replaces the whole running configuration"),
    ("sq[ueeze]", "permanently removes deleted files"),
    ("fs[ck]", "checks and repairs a file system"),
    ("fa[ctory-reset]", "resets the device to factory defaults"),
    ("tc[lsh]", "runs scripts on the device"),
    ("gu[estshell]", "runs a shell on the device"),
    ("end$", "leaves configuration mode, so the following lines would run as exec commands"),
    ("cop[y] <src> r[unning-config]", "loads configuration nobody reviewed"),
    ("cop[y] <src> s[tartup-config]", "overwrites the startup configuration"),
    ("ar[chive] d[ownload-sw]", "installs new software"),
    ("li[cense] bo[ot]", "changes the licence the device boots with"),
    ("ru[n] ba[sh]", "runs a shell on the device"),
)
_ARISTA_RULES = (("ba[sh]", "runs a shell on the device"),)
_JUNOS_RULES = (
    ("req[uest] sy[stem]", "reboots, halts, zeroizes or upgrades the device"),
    ("lo[ad] fa[ctory-default]", "loads the factory-default configuration"),
    ("lo[ad] o[verride]", "replaces the whole configuration"),
    ("de[lete]$", "deletes the whole configuration"),
    ("rol[lback]", "loads an earlier configuration wholesale"),
    ("de[lete] sy[stem] se[rvices]", "removes management access (ssh/telnet services)"),
    ("de[lete] sy[stem] lo[gin]", "removes the login accounts used for management"),
    ("de[lete] in[terfaces] <mgmt>", "removes the management interface"),
    ("dea[ctivate] in[terfaces] <mgmt>", "disables the management interface"),
    ("se[t] in[terfaces] <mgmt> di[sable]", "disables the management interface"),
)
_HUAWEI_RULES = (
    ("res[et] sa[ved-configuration]", "erases the saved configuration"),
    ("res[et] fa[ctory-configuration]", "resets the device to factory defaults"),
    ("reb[oot]", "reboots the device"),
    ("sc[hedule] reb[oot]", "schedules a reboot"),
    ("st[artup] sa[ved-configuration]", "changes the configuration the device boots with"),
    ("st[artup] sy[stem-software]", "changes the software the device boots"),
    ("de[lete]", "deletes files from the device"),
    ("fo[rmat]", "formats a file system"),
    ("de[bugging]", "debugging can overload the device"),
    ("ret[urn]$", "leaves system view, so the following lines would run as user-view commands"),
    ("un[do] te[lnet] se[rver] en[able]", "removes management access (telnet server)"),
    ("un[do] st[elnet] se[rver] en[able]", "removes management access (ssh server)"),
)
_PREFIXES = {"ios": ("do",), "junos": ("run",), "huawei": ()}
_FAMILIES = {
    "cisco_ios": ("ios",),
    "cisco_xe": ("ios",),
    "cisco_xr": ("ios",),
    "cisco_nxos": ("ios",),
    "arista_eos": ("ios", "arista"),
    "juniper_junos": ("junos",),
    "juniper": ("junos",),
    "huawei_vrp": ("huawei",),
    "huawei": ("huawei",),
    "hp_comware": ("huawei",),
}
_RULE_SETS = {
    "ios": _IOS_RULES,
    "arista": _ARISTA_RULES,
    "junos": _JUNOS_RULES,
    "huawei": _HUAWEI_RULES,
}
_EMBEDDED = (
    re.compile(r"^alias \S+ \S+ (?P<cmd>.+)$"),
    re.compile(r"^action \S+ cli command \"?(?P<cmd>[^\"]+)\"?"),
    re.compile(r"^action \S+ (?!cli\b)(?P<cmd>.+)$"),  # EEM actions such as `action 1.0 reload`
    re.compile(r"^cli (?P<cmd>.+)$"),
)
_MGMT_WORDS = ("management", "mgmt", "meth", "fxp", "em", "me", "vme")


@dataclass(frozen=True)
class Violation:
    """One refused line: `line` as rendered, `rule` that matched, `reason` for the user."""

    line: str
    rule: str
    reason: str
    number: int = 0  # 1-based position in the checked lines

    def __str__(self) -> str:
        return f"line {self.number} `{self.line.strip()}` is refused ({self.rule}): {self.reason}"


@dataclass(frozen=True)
class _Rule:
    spec: str
    words: tuple[tuple[str, str], ...]  # (shortest abbreviation, full word)
    whole_line: bool
    reason: str

    def matches(self, tokens: Sequence[str]) -> bool:
        if len(tokens) < len(self.words) or (self.whole_line and len(tokens) != len(self.words)):
            return False
        return all(_word_matches(tok, word) for tok, word in zip(tokens, self.words, strict=False))


def _word_matches(token: str, word: tuple[str, str]) -> bool:
    head, full = word
    if head == "<mgmt>":
        return is_management_interface(token)
    if head == "<src>":  # any copy source but the running config (`copy run start` saves)
        return not _is_running_config(token)
    return len(token) >= len(head) and full.startswith(token)


def _is_running_config(token: str) -> bool:
    name = token.removeprefix("system:")
    return len(name) >= 3 and "running-config".startswith(name)


def is_management_interface(name: str) -> bool:
    """Management1, Ma1, mgmt0, MEth0/0/1, fxp0, em0, me0 (any case)."""
    match = re.match(r"([a-z-]+)\s*\d", name.casefold())
    if not match:
        return False
    alpha = match.group(1)
    return alpha in _MGMT_WORDS or (len(alpha) >= 2 and "management".startswith(alpha))


def _parse_rule(spec: str, reason: str) -> _Rule:
    whole_line = spec.endswith("$")
    words = []
    for part in spec.rstrip("$").split():
        head, _, tail = part.partition("[")
        words.append((head, head + tail.rstrip("]")))
    return _Rule(spec, tuple(words), whole_line, reason)


def _normalize(line: str) -> list[str]:
    return unicodedata.normalize("NFKC", line).casefold().split()


def _strip_prefixes(tokens: list[str], prefixes: Sequence[str]) -> list[str]:
    while tokens and tokens[0] in prefixes:
        tokens = tokens[1:]
    return tokens


def _has_control_character(line: str) -> bool:
    return any(ch != "\t" and unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") for ch in line)


class _FamilyRules:
    """The rules of one family, indexed by the first two letters of their first word."""

    def __init__(self, sets: Sequence[str]) -> None:
        self.prefixes = tuple(p for name in sets for p in _PREFIXES.get(name, ()))
        self.index: dict[str, list[_Rule]] = {}
        for name in sets:
            for spec, reason in _RULE_SETS[name]:
                rule = _parse_rule(spec, reason)
                self.index.setdefault(rule.words[0][0][:2], []).append(rule)

    def match(self, tokens: list[str]) -> _Rule | None:
        tokens = _strip_prefixes(tokens, self.prefixes)
        if not tokens:
            return None
        for rule in self.index.get(tokens[0][:2], ()):
            if rule.matches(tokens):
                return rule
        return None


_ALL_SETS = tuple(_RULE_SETS)
_BY_FAMILY: dict[tuple[str, ...], _FamilyRules] = {}


def _rules_for(family: str) -> _FamilyRules:
    sets = _FAMILIES.get(platform_family(family), _ALL_SETS)  # unknown family: every rule
    if sets not in _BY_FAMILY:
        _BY_FAMILY[sets] = _FamilyRules(sets)
    return _BY_FAMILY[sets]


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

    def _line_violations(self, line: str, rules: _FamilyRules) -> Iterator[tuple[str, str]]:
        if _has_control_character(line):
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
        normalized = " ".join(tokens)
        for pattern, regex in self._extra:
            if regex.search(normalized) or regex.search(line):
                yield f"extra:{pattern}", "matches a site deny rule (LABBOT_DENY_EXTRA)"


_SECTION_END = ("exit", "!", "end", "router", "quit", "#")
_MGMT_SECTION_RULES = {
    "interface": [_parse_rule(s, "") for s in ("sh[utdown]$", "no ip add[ress]", "un[do] ip ad")],
    "line-vty": [_parse_rule("tr[ansport] i[nput] none$", "")],
}


def _section_of(tokens: Sequence[str], current: str | None) -> str | None:
    """Which management-relevant section a line opens, keeps or closes."""
    if not tokens:
        return current
    first = tokens[0]
    if len(first) >= 3 and "interface".startswith(first):
        return "interface" if len(tokens) > 1 and is_management_interface(tokens[1]) else None
    if len(first) >= 2 and "line".startswith(first) and first != "l":
        return "line-vty" if len(tokens) > 1 and tokens[1].startswith("vty") else None
    if first in _SECTION_END or first.startswith("user-interface"):
        return None
    return current


def _management_violations(lines: Sequence[str], rules: _FamilyRules) -> list[Violation]:
    section: str | None = None
    found = []
    for number, line in enumerate(lines, start=1):
        tokens = _strip_prefixes(_normalize(line), rules.prefixes)
        new_section = _section_of(tokens, section)
        if new_section == section and section is not None:
            hit = next((r for r in _MGMT_SECTION_RULES[section] if r.matches(tokens)), None)
            if hit is not None:
                reason = "would cut off management access to the device"
                found.append(Violation(line, f"management:{hit.spec}", reason, number))
        section = new_section
    return found
