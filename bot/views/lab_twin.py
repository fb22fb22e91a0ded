"""How the lab's twin answer is said at the params gate (workflow/phases/lab_twin.py): a line of
what
the network did there — sessions up between which routers, routes learned — or what failed, and
a block per target with its post-checks on the twin."""

from __future__ import annotations

import re

from bot import messages
from bot.views.postcheck import checks_text
from workflow.model import StandardResponse
from workflow.phases.lab_twin import DISAGREES, Cause, LabTwinAnswer
from workflow.phases.reviews import ParamsReview
from workflow.postcheck_outcome import DeviceChecks
from workflow.postchecks.routing_sessions import (
    UP_STATES,
    Protocol,
    SessionState,
    session_states,
)

SHOWN = 3  # routes named in the line; the rest are counted
_NUMBER = re.compile(r"(\d+)")
PROTOCOL_NAMES: dict[Protocol, str] = {"ospf": "OSPF", "bgp": "BGP"}


def lab_twin_note(review: ParamsReview) -> str:
    """The gate's line about the lab's twin ("" when the change had none)."""
    answer = review.get("lab_twin")
    if answer is None:
        return ""
    if answer["kind"] == "none":
        why = messages.NO_TWIN_WHY[answer.get("why", "error")]
        said = why.format(routers=answer["routers"], detail=answer.get("detail", ""))
        return messages.TWIN_NONE.format(why=said)
    sessions = [s for name, c in _in_order(answer["checks"]) for s in session_states(name, c)]
    counts = {"routers": answer["routers"], "seconds": answer["seconds"]}
    if answer["kind"] == "passed":
        facts = [*_up(sessions), *_counted(_routes_met(answer["checks"]))]
        return messages.TWIN_PASSED.format(
            **counts, facts="; ".join(facts) or messages.TWIN_PASSED_NOTHING
        )
    problems = [
        *_down(sessions, answer.get("causes", [])),
        *_counted(_routes_missing(answer["checks"])),
        *_refused(answer),
    ]
    return messages.TWIN_FAILED.format(**counts, problems="; ".join(problems))


def lab_twin_sections(review: ParamsReview) -> list[tuple[str, str, str]]:
    """A block per target: its post-checks on the twin."""
    answer = review.get("lab_twin")
    if answer is None:
        return []
    return [
        (messages.SECTION_TWIN.format(device=name), checks_text(checks, name), "text")
        for name, checks in _in_order(answer["checks"])
    ]


def by_name(name: str) -> list[str | int]:
    """Sort key putting R2 before R10."""
    return [int(part) if part.isdigit() else part for part in _NUMBER.split(name)]


def disagreement_note(checks: StandardResponse | None) -> str:
    """After the push: the devices whose post-checks disagree with their twin's ("" none)."""
    found = checks.get("metadata", {}).get(DISAGREES) if checks is not None else None
    if not found:
        return ""
    said = [
        messages.TWIN_DISAGREES_HOW[how].format(device=device)
        for device, how in sorted(found.items(), key=lambda item: by_name(item[0]))
    ]
    return messages.TWIN_DISAGREES.format(devices="; ".join(said))


def _in_order(checks: dict[str, DeviceChecks]) -> list[tuple[str, DeviceChecks]]:
    return sorted(checks.items(), key=lambda item: by_name(item[0]))


def _ends(session: SessionState) -> tuple[str, str]:
    a, b = sorted((session.device, session.peer or session.address), key=by_name)
    return a, b


def _key(ends: tuple[str, str]) -> tuple[list[str | int], list[str | int]]:
    return by_name(ends[0]), by_name(ends[1])


def _pair(session: SessionState) -> str:
    a, b = _ends(session)
    return messages.SESSION_PAIR.format(a=a, b=b)


def _up(sessions: list[SessionState]) -> list[str]:
    """`OSPF Full on R1–R2, R2–R3` per protocol, each pair once."""
    said = []
    for protocol, name in PROTOCOL_NAMES.items():
        ends = sorted({_ends(s) for s in sessions if s.protocol == protocol and s.up}, key=_key)
        pairs = [messages.SESSION_PAIR.format(a=a, b=b) for a, b in ends]
        if pairs:
            up, joined = UP_STATES[protocol], ", ".join(pairs)
            said.append(messages.SESSIONS_UP.format(protocol=name, state=up, pairs=joined))
    return said


def _down(sessions: list[SessionState], causes: list[Cause]) -> list[str]:
    """`R2–R3 stays Init (OSPF)` for each pair a side of which is not up, with why when the
    twin's routers showed it (`R2–R3 never meets (OSPF): area 0 on R2, area 1 on R3`)."""
    said: dict[tuple[str, str], str] = {}
    for s in sessions:
        pair, protocol = _pair(s), PROTOCOL_NAMES[s.protocol]
        if s.up or (pair, protocol) in said:
            continue
        why = [
            messages.TWIN_CAUSES[c["kind"]].format(**c)
            for c in causes
            if c["protocol"] == s.protocol and {c["device"], c["peer"]} == set(_ends(s))
        ]
        template = messages.SESSION_DOWN if s.state else messages.SESSION_ABSENT
        line = template.format(pair=pair, state=s.state, protocol=protocol)
        if why:
            template = messages.SESSION_DOWN_WHY if s.state else messages.SESSION_ABSENT_WHY
            line = template.format(pair=pair, state=s.state, protocol=protocol, why=", ".join(why))
        said[pair, protocol] = line
    return list(said.values())


ROUTE_MET = {
    "loopback_routes": messages.LOOPBACK_LEARNED,
    "bgp_prefixes": messages.PREFIX_LEARNED,
    "routes": messages.ROUTE_HELD,
}


def _routes_met(checks: dict[str, DeviceChecks]) -> list[str]:
    return [
        ROUTE_MET[fact["check"]].format(device=name, peer=fact["peer"], prefix=fact["key"])
        for name, outcome in _in_order(checks)
        for fact in outcome["met"]
        if fact["check"] in ROUTE_MET
    ]


def _routes_missing(checks: dict[str, DeviceChecks]) -> list[str]:
    return [
        messages.ROUTE_LACKING.format(device=name, prefix=missing["fact"]["key"])
        for name, outcome in _in_order(checks)
        for missing in outcome["missing"]
        if missing["fact"]["check"] not in ("ospf_neighbors", "bgp_sessions")
    ]


def _refused(answer: LabTwinAnswer) -> list[str]:
    return [
        messages.TWIN_REFUSED.format(device=name, complaint=complaint)
        for name, complaints in answer["refused"].items()
        for complaint in complaints
    ]


def _counted(items: list[str]) -> list[str]:
    """The first SHOWN items, the last one saying how many more there are."""
    if len(items) <= SHOWN:
        return items
    shown = items[:SHOWN]
    shown[-1] += messages.TWIN_MORE.format(more=len(items) - SHOWN)
    return shown
