"""Why sessions of the lab's twin stayed down, in the network's terms, read from the twin's own
routers once its post-checks failed (pure: the reads come through `read`).

```
OSPF R2–R3 down ─► both ends of each R2–R3 link: `show ip ospf interface json`
                   area, hello, dead interval, subnet differ / an end runs no OSPF / MTUs differ
BGP R2→R3 down  ─► R2's `show bgp neighbors json` for R3's address: its remoteAs against R3's
                   own AS (`show ip bgp json`: localAS); no such neighbour, no BGP, else the
                   NOTIFICATION R2 sent or got
```
A read the router refuses or an answer that is not JSON gives no cause: the gate then says the
session's state alone.
"""

from __future__ import annotations

import ipaddress
import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from base.errors import LabbotError
from workflow.phases.lab_twin import Cause, CauseKind
from workflow.postcheck_outcome import DeviceChecks
from workflow.postchecks.routing_sessions import Protocol, session_states

Read = Callable[[str, str], str]  # (router, command) -> what the twin's router printed
LinkEnds = tuple[str, str, str, str]  # (router, interface, router, interface)
OSPF_INTERFACES = "show ip ospf interface json"
BGP_NEIGHBORS = "show bgp neighbors json"
BGP_TABLE = "show ip bgp json"
_NUMBER = re.compile(r"(\d+)")


def session_causes(
    checks: Mapping[str, DeviceChecks], links: Sequence[LinkEnds], read: Read
) -> list[Cause]:
    """Each cause found for the targets' sessions that stayed down with a router of the lab."""
    reads = _Reads(read)
    causes: list[Cause] = []
    seen: set[tuple[Protocol, str, str]] = set()
    for device, outcome in sorted(checks.items()):
        for session in session_states(device, outcome):
            if session.up or not session.peer:
                continue
            if session.protocol == "ospf":
                pair = sorted((device, session.peer), key=by_name)
                key: tuple[Protocol, str, str] = ("ospf", pair[0], pair[1])
                found = [] if key in seen else ospf_causes(pair[0], pair[1], links, reads)
            else:
                key = ("bgp", device, session.peer)
                found = (
                    [] if key in seen else bgp_causes(device, session.peer, session.address, reads)
                )
            seen.add(key)
            causes += [cause for cause in found if cause not in causes]
    return _without_echoes(causes)


def _without_echoes(causes: list[Cause]) -> list[Cause]:
    """Without the NOTIFICATION one end got for what the other end's cause says already (R3
    got "Bad Peer AS" because R2 expects another AS than R3's)."""
    explained = {frozenset((c["device"], c["peer"])) for c in causes if c["kind"] != "notice"}
    return [
        c
        for c in causes
        if c["kind"] != "notice" or frozenset((c["device"], c["peer"])) not in explained
    ]


def ospf_causes(a: str, b: str, links: Sequence[LinkEnds], reads: _Reads) -> list[Cause]:
    """What differs between the two ends of each link of `a` and `b`."""
    causes: list[Cause] = []
    for a_if, b_if in _between(a, b, links):
        mine, theirs = reads.ospf(a).get(a_if), reads.ospf(b).get(b_if)
        if mine is None or theirs is None:
            causes += [
                _cause("ospf", "ospf_off", name, other, interface, "")
                for name, other, interface, own in ((a, b, a_if, mine), (b, a, b_if, theirs))
                if own is None and reads.ospf_read(name)
            ]
            continue
        causes += [
            _cause("ospf", kind, a, b, ours, other)
            for kind, ours, other in _ospf_differences(mine, theirs)
        ]
    return causes


def bgp_causes(device: str, peer: str, address: str, reads: _Reads) -> list[Cause]:
    """Why `device`'s session with `peer` (at `address`) is down, as `device` and `peer` show it."""
    neighbors = reads.bgp_neighbors(device)
    if neighbors is None:
        return [_cause("bgp", "no_bgp", device, peer, "", "")] if reads.answered(device) else []
    entry = neighbors.get(address)
    if not isinstance(entry, dict):
        return [_cause("bgp", "no_peer", device, peer, address, "")]
    expected, actual = entry.get("remoteAs"), reads.local_as(peer)
    if actual is None and reads.answered(peer):
        return [_cause("bgp", "no_bgp", peer, device, "", "")]
    if expected is not None and actual is not None and expected != actual:
        return [_cause("bgp", "peer_as", device, peer, str(expected), str(actual))]
    notice = entry.get("lastNotificationReason")
    if notice:
        return [_cause("bgp", "notice", device, peer, str(notice), "")]
    return []


def _ospf_differences(
    mine: Mapping[str, Any], theirs: Mapping[str, Any]
) -> list[tuple[CauseKind, str, str]]:
    found: list[tuple[CauseKind, str, str]] = []
    if mine.get("area") != theirs.get("area"):
        found.append(("area", _area(mine.get("area")), _area(theirs.get("area"))))
    subnets = [_subnet(own) for own in (mine, theirs)]
    if None not in subnets and subnets[0] != subnets[1]:
        found.append(("subnet", _address(mine), _address(theirs)))
    for kind, field, scale in (("hello", "timerMsecs", 1000), ("dead", "timerDeadSecs", 1)):
        if mine.get(field) != theirs.get(field):
            ours, other = (_seconds(own.get(field), scale) for own in (mine, theirs))
            found.append((kind, ours, other))  # type: ignore[arg-type]
    if not found and mine.get("mtuBytes") != theirs.get("mtuBytes"):
        found.append(("mtu", str(mine.get("mtuBytes")), str(theirs.get("mtuBytes"))))
    return found


def _between(a: str, b: str, links: Sequence[LinkEnds]) -> list[tuple[str, str]]:
    """The interfaces of `a` and `b` on each link between them, `a`'s first."""
    ends = []
    for x, x_if, y, y_if in links:
        if (x, y) == (a, b):
            ends.append((x_if, y_if))
        elif (x, y) == (b, a):
            ends.append((y_if, x_if))
    return ends


def _cause(
    protocol: Protocol, kind: CauseKind, device: str, peer: str, mine: str, theirs: str
) -> Cause:
    return Cause(protocol=protocol, kind=kind, device=device, peer=peer, mine=mine, theirs=theirs)


def _area(area: object) -> str:
    """`0.0.0.1` as 1 (as the template's parameter says it); other areas as read."""
    try:
        return str(int(ipaddress.IPv4Address(str(area))))
    except ValueError:
        return str(area)


def _subnet(interface: Mapping[str, Any]) -> ipaddress.IPv4Network | None:
    try:
        return ipaddress.ip_interface(_address(interface)).network  # type: ignore[return-value]
    except ValueError:
        return None


def _address(interface: Mapping[str, Any]) -> str:
    return f"{interface.get('ipAddress')}/{interface.get('ipAddressPrefixlen')}"


def _seconds(value: object, scale: int) -> str:
    return f"{value / scale:g}" if isinstance(value, int | float) else "?"


def by_name(name: str) -> list[str | int]:
    """Sort key putting R2 before R10."""
    return [int(part) if part.isdigit() else part for part in _NUMBER.split(name)]


class _Reads:
    """The twin's reads, each made once; a refused read or one not JSON is None."""

    def __init__(self, read: Read) -> None:
        self._read = read
        self._done: dict[tuple[str, str], dict[str, Any] | None] = {}

    def json(self, router: str, command: str) -> dict[str, Any] | None:
        if (router, command) not in self._done:
            try:
                found = json.loads(self._read(router, command))
            except (LabbotError, OSError, ValueError):  # refused, or not JSON
                found = None
            self._done[router, command] = found if isinstance(found, dict) else None
        return self._done[router, command]

    def ospf(self, router: str) -> dict[str, Any]:
        """The router's interfaces running OSPF, by name ({} when it runs none)."""
        found = (self.json(router, OSPF_INTERFACES) or {}).get("interfaces") or {}
        return {name: entry for name, entry in found.items() if entry.get("ospfEnabled", True)}

    def ospf_read(self, router: str) -> bool:
        return self.json(router, OSPF_INTERFACES) is not None

    def bgp_neighbors(self, router: str) -> dict[str, Any] | None:
        """The router's BGP neighbours by address; None when it runs no BGP."""
        if self.local_as(router) is None:
            return None
        return self.json(router, BGP_NEIGHBORS) or {}

    def local_as(self, router: str) -> int | None:
        found = (self.json(router, BGP_TABLE) or {}).get("localAS")
        return found if isinstance(found, int) else None

    def answered(self, router: str) -> bool:
        """The router answered the BGP table read (JSON, with or without BGP)."""
        return self.json(router, BGP_TABLE) is not None
