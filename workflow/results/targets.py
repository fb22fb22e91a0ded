"""Which devices a request is for: read from its words, fail closed, with the reason per device.

Devices come after the last "to", "on" or "for" of the request (`apply ospf to R1,R2 area=0`,
`configure OSPF area 0 on all routers`); key=value pairs, or a phrase starting with "in",
"with", "using", "via", "where" or "at" (`on R1,R2 in area 3`), may follow them. Each word of
the list is:

- a device name (any case): that device (chosen "named");
- a glob (`R*`, `SW?`): the devices it matches, at least one ("glob");
- a kind word (`routers`, `switches`, `firewalls`): the devices of that kind, from the
  inventory's data (`kind:`/`role:`), its groups, the GNS3 node type or symbol, else the
  vendor family ("kind", with where the kind comes from);
- `all`/`every`/`devices`/`*` alone: every device ("every");
- a filler word (and, the, of, …).

A plain word after the list (`on all routers hello-interval 1`) ends it. Anything else —
`../R1`, `R1.lab`, `core-router`, `R9`, a line break — is an error naming the word and the known
devices, never "every device". A request naming no device is an error too. A secret value
and its keyword (base.secrets_in_requests) are left out before: `set the snmp community to s3cr3t`
names no device, and the error does not repeat the value.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from base.errors import TargetError
from base.secrets_in_requests import SAID_SECRET
from workflow.chosen import Because, Chosen, KindSource, chosen
from workflow.model import Device, DeviceFacts, Link, Topology, link_ends

__all__ = [
    "Selection",
    "chosen_because",
    "device_kinds",
    "expand_targets",
    "infer_kind",
    "neighbours",
    "select_targets",
    "target_words",
    "topology_kinds",
    "topology_selection",
    "unread_devices",
    "usable_devices",
]

KIND_WORDS = {
    "router": "router",
    "routers": "router",
    "switch": "switch",
    "switches": "switch",
    "firewall": "firewall",
    "firewalls": "firewall",
}
# an inventory may also say a device is a host (drawn as one; no request word selects hosts)
DECLARED_KINDS = {**KIND_WORDS, "host": "host"}
_EVERY = {"all", "every", "each", "devices", "device", "nodes", "node", "*"}
_FILLER = {"and", "the", "of", "a", "lab", "our", "my", "both"}
_LIST_END = {"in", "with", "using", "via", "where", "at"}  # "on R1,R2 in area 3": R1, R2
_TARGET_WORD = re.compile(r"\b(?:to|on|for)\s", re.IGNORECASE)
_KEY_VALUE = re.compile(r"""(?<![\w-])[A-Za-z_][\w-]*=("[^"]*"|'[^']*'|\S+)""")
_SEPARATORS = re.compile(r"[ ,;]+")
_PLAIN_WORD = re.compile(r"[A-Za-z][A-Za-z-]*")


_FAMILY_KINDS = {
    "cisco_ios": "router",
    "cisco_xe": "router",
    "cisco_xr": "router",
    "juniper_junos": "router",
    "huawei_vrp": "router",
    "frr": "router",
    "arista_eos": "switch",
    "cisco_nxos": "switch",
}


@dataclass(frozen=True)
class Selection:
    """The chosen devices in name order, each with why it was chosen."""

    reasons: dict[str, Chosen]

    @property
    def names(self) -> list[str]:
        return sorted(self.reasons)


def target_words(text: str) -> list[str]:
    """The words after the last "to"/"on"/"for" (key=value pairs left out); [] when none.
    A secret value and its keyword (`community to s3cr3t`) are left out first: never a device,
    so never named back in an error. One pass over the text: a long request costs linear time."""
    text = SAID_SECRET.sub(" ", text)
    last = None
    for last in _TARGET_WORD.finditer(text):  # noqa: B007 - the last match is wanted
        pass
    if last is None:
        return []
    tail = _KEY_VALUE.sub(" ", text[last.end() :]).strip().strip(",;")
    words = []
    for word in _SEPARATORS.split(tail):
        if word.casefold() in _LIST_END:
            break
        if word:
            words.append(word)
    return words


KindOf = tuple[str, KindSource, str]  # a device's kind, where it comes from, which group/symbol/…


def select_targets(
    words: list[str], kinds: Mapping[str, KindOf], *, strict: bool = False
) -> Selection:
    """`kinds`: every known device -> its KindOf. Raises TargetError naming the
    first word that is not a device, a glob matching one, a kind or a filler word; `strict`:
    every word must be one (a plain word after the list is refused, not taken as its end)."""
    known = tuple(sorted(kinds))
    if not words:
        raise TargetError("none_named", known=known)
    by_fold = {name.casefold(): name for name in kinds}
    reasons: dict[str, Chosen] = {}
    words = words if strict else _device_part(words, by_fold)
    wanted_kinds = [KIND_WORDS[w.casefold()] for w in words if w.casefold() in KIND_WORDS]
    for word in words:
        fold = word.casefold()
        if fold in by_fold:
            reasons.setdefault(by_fold[fold], chosen("named"))
        elif any(mark in word for mark in "*?[") and word != "*":
            matched = [n for n in kinds if fnmatch.fnmatchcase(n.casefold(), fold)]
            if not matched:
                raise TargetError("no_match", word, known)
            for name in matched:
                reasons.setdefault(name, chosen("glob", word))
        elif fold in _EVERY and not wanted_kinds:
            for name in kinds:
                reasons.setdefault(name, chosen("every", fold))
        elif fold not in KIND_WORDS and fold not in _EVERY and fold not in _FILLER:
            raise TargetError("unknown", word, known)
    for kind in dict.fromkeys(wanted_kinds):
        of_kind = {
            n: Chosen(kind="kind", word=kind, source=source, detail=detail)
            for n, (k, source, detail) in kinds.items()
            if k == kind
        }
        if not of_kind:
            raise TargetError("no_kind", kind, known)
        for name, why in of_kind.items():
            reasons.setdefault(name, why)
    return Selection(reasons=dict(sorted(reasons.items())))


def _device_part(words: list[str], by_fold: Mapping[str, str]) -> list[str]:
    """The words up to the first plain word (letters and hyphens, no digit: `hello-interval`)
    that follows a selector: "on all routers hello-interval 1" is about all routers. A word
    shaped like a name (`R9`, `R1.lab`, `../R1`), or one right after "and", stays in."""
    for index, word in enumerate(words):
        fold = word.casefold()
        known = fold in by_fold or fold in KIND_WORDS or fold in _EVERY or fold in _FILLER
        follows_selector = index > 0 and words[index - 1].casefold() not in _FILLER
        if not known and follows_selector and _PLAIN_WORD.fullmatch(word):
            return words[:index]
    return words


def infer_kind(
    declared: str = "", groups: tuple[str, ...] = (), symbol: str = "", family: str = ""
) -> KindOf:
    """A device's kind and where it comes from: the inventory's `kind:`/`role:` when it is a
    kind word, a group named after a kind, the GNS3 node type or symbol, else what its vendor
    family usually is."""
    if declared.casefold() in DECLARED_KINDS:
        return DECLARED_KINDS[declared.casefold()], "inventory", ""
    for group in groups:
        if group.casefold() in KIND_WORDS:
            return KIND_WORDS[group.casefold()], "group", group
    for word in ("firewall", "switch", "router"):
        if word in symbol.casefold():
            return word, "symbol", symbol
    if family in _FAMILY_KINDS:
        return _FAMILY_KINDS[family], "family", family
    return "", "unknown", ""


def device_kinds(devices: list[Device]) -> dict[str, KindOf]:
    """Every device -> its KindOf: the inventory's kind, else its family's usual kind."""
    return {
        d.name: (d.kind, d.kind_source, d.kind_detail) if d.kind else infer_kind(family=d.family)
        for d in devices
    }


def unread_devices(
    devices: list[Device], read: Mapping[str, DeviceFacts]
) -> dict[str, DeviceFacts]:
    """The devices the request did not select, listed but never read (so never offered)."""
    return {
        d.name: DeviceFacts(
            name=d.name,
            platform=d.platform,
            family=d.family,
            interfaces=[],
            running_config="",
            error="not read: the request does not select it",
        )
        for d in devices
        if d.name not in read
    }


def neighbours(names: list[str], links: list[Link]) -> list[str]:
    """The devices at the other end of the links of `names`, themselves left out."""
    chosen = set(names)
    found = set()
    for link in links:
        (a_device, _), (b_device, _) = link_ends(link)
        if a_device in chosen:
            found.add(b_device)
        if b_device in chosen:
            found.add(a_device)
    return sorted(found - chosen)


def topology_selection(text: str, topology: Topology) -> Mapping[str, Because]:
    """The devices chosen for `text`: the selection gathered with the topology, else the
    request's words read against the topology's devices (kinds by vendor family)."""
    if "selection" in topology:
        return topology["selection"]
    return select_targets(target_words(text), topology_kinds(topology)).reasons


def topology_kinds(topology: Topology) -> dict[str, KindOf]:
    """Every device of the topology -> its kind, told by its vendor family."""
    return {name: infer_kind(family=f["family"]) for name, f in topology["devices"].items()}


def chosen_because(targets: list[str], topology: Topology) -> dict[str, Because]:
    """Each target with why the request chose it (the planner's own choice when it did not)."""
    selection = topology.get("selection") or {}
    return {name: selection.get(name, chosen("planner")) for name in targets}


def usable_devices(topology: Topology) -> list[str]:
    """The devices of the lab a change may target (read, with facts that may be used)."""
    return sorted(name for name, facts in topology["devices"].items() if "error" not in facts)


def expand_targets(patterns: Sequence[str], topology: Topology) -> list[str]:
    """Device names and globs (`R*`, `*`, or `all`) to names: a glob stands for the usable
    devices of the request's selection it matches; a name, or a glob matching none, is kept as
    given, so that `target_errors` names it. No pattern: the request's selection."""
    selection = topology.get("selection")
    usable = [n for n in usable_devices(topology) if selection is None or n in selection]
    if not patterns:
        return usable
    names: list[str] = []
    for pattern in patterns:
        glob = "*" if pattern.casefold() == "all" else pattern
        if any(mark in glob for mark in "*?["):
            matched = [n for n in usable if fnmatch.fnmatch(n.casefold(), glob.casefold())]
            names.extend(matched or [pattern])
        else:
            names.append(pattern)
    return list(dict.fromkeys(names))
