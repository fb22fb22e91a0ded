"""Which commands a read may send: an allow-list per platform family, never a deny-list.

A command is one line of printable characters from a small set (no `;`, `>`, `<`, `!`, `?`, `&`,
backquote, no control character). Its first word is one of the family's read verbs (`show`,
VRP's `display`; `sh`/`sho` abbreviations); `ping` and `traceroute` only where their count and
timeout can be bounded, in the platform's own syntax (IOS `repeat`/`timeout`, EOS `repeat`,
Junos `count`/`wait`, VRP `-c`/`-t` before the address and `tracert`), with the bounds added
when left out; FRR's vtysh takes only an address for either, so there they are refused. A `|`
is followed only by an output filter (`include`, `exclude`, `section`, `begin`, Junos
`match`/`except`/`find`), abbreviations spelled out before sending. A read whose output lists
secrets in clear where the mask rules (base.secret_rules, one line at a time) cannot tell them
(IOS `show crypto isakmp key`: a table of peers and their keys) is refused too. Anything else is
refused with the reason, before any device is asked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from base.errors import ReadRefused
from workflow.model import platform_family
from workflow.safety.deny import matching_rule

# printable characters a read may hold: regexes after a filter need ^ $ . * + ( ) [ ] \
_SAFE = re.compile(r"[A-Za-z0-9 _\-./:,*+^$()\[\]|\\\"'=@]*")
_ARG = re.compile(r"[A-Za-z0-9_\-./:]+")  # a ping/traceroute argument: address, name, number


@dataclass(frozen=True)
class Bound:
    """An option taking `values` numbers of at most `limit`; `default` is added when missing."""

    limit: int
    default: int | None = None
    values: int = 1  # IOS `traceroute … ttl MIN MAX` takes two


@dataclass(frozen=True)
class Probe:
    """A bounded active command (ping, traceroute) in the platform's own syntax: its options
    with their limits, options taking a word (`source Loopback0`), where the options go."""

    options: dict[str, Bound]
    words: tuple[str, ...] = ()
    options_first: bool = False  # VRP: `ping -c 5 -t 2000 10.0.0.1`
    sent_as: str = ""  # the platform's verb when it differs (VRP `tracert`)


@dataclass(frozen=True)
class Rules:
    verbs: tuple[str, ...]
    filters: tuple[str, ...]
    probes: dict[str, Probe]
    unbounded: bool = False  # its ping/traceroute take only an address: they cannot be bounded
    # reads printing secrets no mask rule finds: (words as the deny-list writes them, what)
    secret_reads: tuple[tuple[str, str], ...] = ()


PROBE_VERBS = ("ping", "traceroute")
_IOS_PROBES = {
    "ping": Probe(
        {"repeat": Bound(5, 5), "timeout": Bound(2, 2), "size": Bound(1500)}, ("source",)
    ),
    "traceroute": Probe(
        {"timeout": Bound(2, 2), "probe": Bound(3, 1), "ttl": Bound(30, values=2)}, ("source",)
    ),
}
_EOS_PROBES = {  # the count bounds EOS's ping; its traceroute takes Linux options: not offered
    "ping": Probe({"repeat": Bound(5, 5), "size": Bound(1500)}, ("source",)),
}
_JUNOS_PROBES = {
    "ping": Probe({"count": Bound(5, 5), "wait": Bound(2, 2), "size": Bound(1500)}, ("source",)),
    "traceroute": Probe({"wait": Bound(2, 2), "ttl": Bound(30, 30)}, ("source",)),
}
_VRP_PROBES = {  # VRP's options come before the address; its timeouts are in milliseconds
    "ping": Probe({"-c": Bound(5, 5), "-t": Bound(2000, 2000), "-s": Bound(1500)}, ("-a",), True),
    "traceroute": Probe(
        {"-q": Bound(3, 1), "-w": Bound(2000, 2000), "-m": Bound(30, 30)}, ("-a",), True, "tracert"
    ),
}
_IOS_FILTERS = ("include", "exclude", "section", "begin")
_IOS_SECRET_READS = (  # the keys stand alone in a column, with no keyword beside them
    ("sh[ow] cr[ypto] i[sakmp] k[ey]", "lists the IKE pre-shared keys in clear"),
)
_IOS = Rules(("show",), _IOS_FILTERS, _IOS_PROBES, secret_reads=_IOS_SECRET_READS)
RULES: dict[str, Rules] = {
    "cisco_ios": _IOS,
    "cisco_xe": _IOS,
    "cisco_nxos": Rules(("show",), ("include", "exclude", "section", "begin"), {}),
    "cisco_xr": Rules(("show",), ("include", "exclude", "begin"), {}),
    "arista_eos": Rules(("show",), _IOS_FILTERS, _EOS_PROBES),
    # vtysh's ping/traceroute run the host's tool until it ends: no count or timeout
    "frr": Rules(("show",), ("include", "exclude"), {}, unbounded=True),
    "juniper_junos": Rules(("show",), ("match", "except", "find", "count", "last"), _JUNOS_PROBES),
    "huawei_vrp": Rules(("display",), ("include", "exclude", "begin"), _VRP_PROBES),
}
VERBS = frozenset(verb for rules in RULES.values() for verb in (*rules.verbs, *rules.probes))


def rules_for(platform: str) -> Rules:
    family = platform_family(platform)
    if family not in RULES:
        raise ReadRefused("platform", family)
    return RULES[family]


def allowed_read(platform: str, command: str) -> str:
    """The command as it will be sent to a `platform` device (abbreviations spelled out, bounds
    added), or ReadRefused saying why it is not an allowed read."""
    rules = rules_for(platform)
    refuse_unsafe(command)
    head, *pipes = command.strip().split("|")
    words = head.split()
    if not words:
        raise ReadRefused("no_command")
    verb = _verb(words[0], rules)
    if verb in rules.probes:
        words = _bounded(verb, words[1:], rules.probes[verb])
    elif len(words) < 2:
        raise ReadRefused("needs_object", verb)
    else:
        words = [verb, *words[1:]]
        if (secret := matching_rule(" ".join(words), rules.secret_reads)) is not None:
            raise ReadRefused("prints_secrets", head.strip(), value=secret[1])
    return " | ".join([" ".join(words), *(_filter(pipe, rules) for pipe in pipes)])


def refuse_unsafe(text: str) -> None:
    """ReadRefused when `text` holds a character a read may not (a line break, `;`, …)."""
    if not _SAFE.fullmatch(text):
        bad = sorted({ch for ch in text if not _SAFE.fullmatch(ch)})
        raise ReadRefused("unsafe", words=tuple(bad))


def _verb(word: str, rules: Rules) -> str:
    fold = word.casefold()
    for verb in rules.verbs:
        if len(fold) >= 2 and verb.startswith(fold):
            return verb
    if fold in rules.probes:
        return fold
    if fold in PROBE_VERBS:
        raise ReadRefused("probe_unbounded_tool" if rules.unbounded else "probe_not_offered", fold)
    raise ReadRefused("not_a_read", word, words=(*rules.verbs, *rules.probes))


def _filter(pipe: str, rules: Rules) -> str:
    words = pipe.split()
    if not words:
        raise ReadRefused("no_filter")
    fold = words[0].casefold()
    matches = [name for name in rules.filters if name.startswith(fold)]
    if len(matches) != 1:
        raise ReadRefused("not_a_filter", words[0], words=rules.filters)
    if len(words) < 2 and matches[0] not in ("count",):
        raise ReadRefused("needs_pattern", matches[0])
    return " ".join([matches[0], *words[1:]])


def _bounded(verb: str, args: list[str], probe: Probe) -> list[str]:
    """`ping ADDRESS [option value]…` (options anywhere) with every numeric option within its
    bound, the bounds not given added, in the platform's order."""
    address, given, rest = None, {}, list(args)
    while rest:
        word, rest = rest[0], rest[1:]
        option = word.casefold()
        if option in probe.options or option in probe.words:
            count = probe.options[option].values if option in probe.options else 1
            values, rest = rest[:count], rest[count:]
            if len(values) < count or not all(_ARG.fullmatch(v) for v in values):
                raise ReadRefused("needs_value", verb, option=option)
            if option in probe.options:
                _check_bound(verb, option, values, probe.options[option])
            given[option] = values
        elif address is None and _ARG.fullmatch(word) and not word.startswith("-"):
            address = word
        else:
            known = tuple(sorted((*probe.options, *probe.words)))
            raise ReadRefused("bad_option", verb, option=word, words=known)
    if address is None:
        raise ReadRefused("needs_address", verb)
    for option, bound in probe.options.items():
        if option not in given and bound.default is not None:
            given[option] = [str(bound.default)]
    options = [word for option, values in given.items() for word in (option, *values)]
    sent = probe.sent_as or verb
    return [sent, *options, address] if probe.options_first else [sent, address, *options]


def _check_bound(verb: str, option: str, values: list[str], bound: Bound) -> None:
    for value in values:
        if not value.isdigit() or not 0 < int(value) <= bound.limit:
            raise ReadRefused("out_of_bounds", verb, option=option, value=value, limit=bound.limit)
