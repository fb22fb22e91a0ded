"""The lab's twin at the params gate: what it answered, whether a lab can have one, and how its
routers' state is judged against the template's post-checks (pure; `lab_twin_run` runs it).

A twin is the whole lab again — the same FRR routers, links and running configurations, real
FRR in network namespaces of its own — with the previewed lines typed into each target and the
template's post-checks polled on it. Its answer is part of the params gate's payload, so of
the hash the Execute button carries. A twin that fails does not stop the change: the gate
shows the failure and people decide with it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal, NotRequired, TypedDict

from workflow.model import DeviceFacts, Link, StandardResponse, platform_family
from workflow.postcheck_outcome import DeviceChecks, Missing
from workflow.postchecks.evaluate import Expectation, unmet
from workflow.postchecks.parsers import RoutingState
from workflow.topology_lookups import own_interface

__all__ = ["DISAGREES", "Cause", "LabTwinAnswer", "with_disagreements"]

TWIN_FAMILY = "frr"
LinkEnds = tuple[str, str, str, str]  # (router, interface, router, interface)
# Why a change has no twin: the lab has more routers than LABBOT_LAB_TWIN_ROUTERS, a router
# that is not FRR, a router labbot could not read; this host cannot run FRR; every twin slot
# (LABBOT_LAB_TWINS) is taken; the twin did not finish in LABBOT_LAB_TWIN_SECONDS; it broke.
# A device whose post-checks after the push disagree with its twin's: passed on the twin and
# failed on the device, or the other way round.
Disagreement = Literal["twin_passed", "twin_failed"]
DISAGREES = "lab_twin_disagrees"  # the post-checks' metadata key: device -> Disagreement
NoTwin = Literal["too_large", "not_frr", "unreadable", "no_host", "busy", "timeout", "error"]
# Why a session between two of the twin's routers did not come up, as their own state shows it
# (workflow/phases/lab_twin_causes.py): OSPF on a link — the areas, hello or dead intervals, MTUs or
# subnets of its two ends differ, or one end runs no OSPF; BGP — `device` expects another AS
# than `peer` has, has no such neighbour or runs no BGP, or the NOTIFICATION it sent or got.
CauseKind = Literal[
    "area", "hello", "dead", "mtu", "subnet", "ospf_off", "peer_as", "no_peer", "no_bgp", "notice"
]


class Cause(TypedDict):
    """One reason a session of the twin stayed down: `device`'s value `mine` against `peer`'s
    `theirs` (an area, seconds, an AS, an interface or a message; "" when there is none)."""

    protocol: Literal["ospf", "bgp"]
    kind: CauseKind
    device: str
    peer: str
    mine: str
    theirs: str


class LabTwinAnswer(TypedDict):
    """What the lab's twin answered (JSON-shaped: it is in the gate's payload and hash)."""

    kind: Literal["passed", "failed", "none"]  # none: no twin, `why` says why
    routers: int  # the routers the twin ran (or, without one, the lab has)
    seconds: float  # building, typing the lines, waiting for the checks; tearing down aside
    checks: dict[str, DeviceChecks]  # per target: its post-checks on the twin
    refused: dict[str, list[str]]  # per target the twin refused lines of: `line: reply`
    causes: NotRequired[list[Cause]]  # failed: why sessions stayed down, read on the twin
    why: NotRequired[NoTwin]
    detail: NotRequired[str]  # the routers, the limit or the error behind `why`


def no_twin(why: NoTwin, detail: str, routers: int, seconds: float = 0.0) -> LabTwinAnswer:
    return LabTwinAnswer(
        kind="none", routers=routers, seconds=seconds, checks={}, refused={}, why=why, detail=detail
    )


def wants_twin(devices: Mapping[str, DeviceFacts], targets: Sequence[str]) -> bool:
    """A twin is for FRR labs: at least one target is an FRR router."""
    return any(platform_family(devices[name]["platform"]) == TWIN_FAMILY for name in targets)


def twin_refusal(devices: Mapping[str, DeviceFacts], max_routers: int) -> tuple[NoTwin, str] | None:
    """Why the lab (every device, read) can have no twin, with the detail; None when it can."""
    if len(devices) > max_routers:
        return "too_large", str(max_routers)
    other = [
        f"{name} ({facts['platform']})"
        for name, facts in sorted(devices.items())
        if platform_family(facts["platform"]) != TWIN_FAMILY
    ]
    if other:
        return "not_frr", ", ".join(other)
    unread = [name for name, facts in sorted(devices.items()) if "error" in facts]
    if unread:
        return "unreadable", ", ".join(unread)
    return None


def twin_interfaces(
    devices: Mapping[str, DeviceFacts], links: Sequence[LinkEnds] = ()
) -> dict[str, list[tuple[str, str | None]]]:
    """Each router's interfaces with their addresses, as the twin builds them: those read from
    the router, and any other a link of the twin names (no address: its running config may
    give one)."""
    found = {
        name: [(entry["name"], entry["address"]) for entry in facts["interfaces"]]
        for name, facts in sorted(devices.items())
    }
    for a, a_if, b, b_if in links:
        for router, interface in ((a, a_if), (b, b_if)):
            if interface not in {own for own, _ in found[router]}:
                found[router].append((interface, None))
    return found


def twin_links(links: Sequence[Link], devices: Mapping[str, DeviceFacts]) -> list[LinkEnds]:
    """The lab's links between routers of the twin, as (router, interface, router, interface),
    each end named as the router names it: the inventory's name for a port may not be the
    router's (a GNS3 qemu node's `Ethernet1` is its second NIC, `eth1` in FRR)."""
    return [
        (a, own_interface(devices[a], a_if), b, own_interface(devices[b], b_if))
        for a, a_if, b, b_if in (
            (link["a_device"], link["a_interface"], link["b_device"], link["b_interface"])
            for link in links
        )
        if a in devices and b in devices
    ]


def judged(
    expected: Sequence[Expectation], state: RoutingState, seconds: float, *, final: bool
) -> DeviceChecks:
    """One router's post-checks on its twin: passed, failed (at the deadline: `final`) or still
    waiting, with the evidence read."""
    missing: list[Missing] = [why for e in expected if (why := unmet(e, state)) is not None]
    met = [e.fact() for e in expected if unmet(e, state) is None]
    kind: Literal["passed", "failed", "waiting"] = "passed"
    if missing:
        kind = "failed" if final else "waiting"
    return DeviceChecks(
        kind=kind, seconds=round(seconds, 1), met=met, missing=missing, platform=TWIN_FAMILY
    )


def answer_of(
    checks: Mapping[str, DeviceChecks],
    refused: Mapping[str, list[str]],
    routers: int,
    seconds: float,
    causes: Sequence[Cause] = (),
) -> LabTwinAnswer:
    """The twin's answer: passed when every target passed and no line was refused."""
    passed = all(c["kind"] == "passed" for c in checks.values()) and not any(refused.values())
    answer = LabTwinAnswer(
        kind="passed" if passed else "failed",
        routers=routers,
        seconds=round(seconds, 1),
        checks=dict(sorted(checks.items())),
        refused={name: lines for name, lines in sorted(refused.items()) if lines},
    )
    if causes and not passed:
        answer["causes"] = list(causes)
    return answer


def with_disagreements(checks: StandardResponse, answer: LabTwinAnswer | None) -> StandardResponse:
    """The post-checks after the push, with the devices whose outcome differs from their
    twin's in `metadata[DISAGREES]` (left as they are when none does)."""
    twin = answer["checks"] if answer is not None else {}
    found: dict[str, Disagreement] = {}
    for item in checks["data"]:
        on_twin = twin.get(item["name"])
        if on_twin is None or "checks" not in item:
            continue
        passed_here, passed_there = item["status"] == "success", on_twin["kind"] == "passed"
        if passed_there and not passed_here:
            found[item["name"]] = "twin_passed"
        elif passed_here and not passed_there:
            found[item["name"]] = "twin_failed"
    if not found:
        return checks
    said = StandardResponse(**checks)
    said["metadata"] = {**checks.get("metadata", {}), DISAGREES: found}
    return said
