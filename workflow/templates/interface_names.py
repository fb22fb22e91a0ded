"""The interfaces a device's lines name that the device does not have (pure): the preview warns
for each, naming the closest one it has (`GigabitEthernet9/9` on a switch of FastEthernet0/1-12
is no port of it; the push would fail there). Interfaces that configuration creates (loopbacks,
VLAN interfaces, tunnels, port channels) are not warned of."""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence

from base.grammar import grammar_for
from workflow.model import DeviceFacts

__all__ = ["missing_interfaces"]

# interface kinds a configuration line creates (IOS, EOS, FRR, Junos, VRP names)
_CREATED = re.compile(
    r"^(loopback|lo\d|lo$|vlan|vlanif|tunnel|port-channel|eth-trunk|bvi|nve|null|dummy|vxlan"
    r"|bdi|virtual-template|dialer|irb|ae\d)",
    re.IGNORECASE,
)
_INTERFACE_LINE = re.compile(r"^interface (?:range )?(\S+)")


def missing_interfaces(lines: Sequence[str], facts: DeviceFacts) -> dict[str, str]:
    """Each interface the lines open that the device's facts do not list -> the closest one the
    device has ("" when none is close)."""
    have = {interface["name"].casefold(): interface["name"] for interface in facts["interfaces"]}
    if not have:
        return {}  # its interfaces were not read: nothing to compare with
    found: dict[str, str] = {}
    for name in _opened(lines, facts["family"]):
        if name.casefold() in have or _CREATED.match(name):
            continue
        closest = difflib.get_close_matches(name.casefold(), list(have), n=1, cutoff=0.5)
        found[name] = have[closest[0]] if closest else ""
    return found


def _opened(lines: Sequence[str], family: str) -> list[str]:
    """The interfaces the lines open, spelled as the device would (`gi0/1` is
    `GigabitEthernet0/1` where the platform has a mode grammar)."""
    grammar = grammar_for(family)
    if grammar is not None:
        spelled = [where.spelled for _, _, where in grammar.numbered(lines) if where.opens]
    else:
        spelled = [line.strip() for line in lines if not line[:1].isspace()]
    return [match[1] for text in spelled if (match := _INTERFACE_LINE.match(text))]
