"""How the lab's twin answer is said at the params gate (workflow/lab_twin.py): a line of what
the network did there — sessions up between which routers, routes learned — or what failed, and
a block per target with its post-checks on the twin."""

from __future__ import annotations

from bot import messages
from bot.postcheck_view import checks_text
from workflow.lab_twin import LabTwinAnswer
from workflow.postchecks.outcome import DeviceChecks
from workflow.postchecks.routing_sessions import (
    UP_STATES,
    Protocol,
    SessionState,
    session_states,
)
from workflow.reviews import ParamsReview

SHOWN = 3  # routes named in the line; the rest are counted
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
    sessions = [s for name, c in answer["checks"].items() for s in session_states(name, c)]
    counts = {"routers": answer["routers"], "seconds": answer["seconds"]}
    if answer["kind"] == "passed":
        facts = [*_up(sessions), *_counted(_routes_met(answer["checks"]))]
        return messages.TWIN_PASSED.format(
            **counts, facts="; ".join(facts) or messages.TWIN_PASSED_NOTHING
        )
    problems = [*_down(sessions), *_counted(_routes_missing(answer["checks"])), *_refused(answer)]
    return messages.TWIN_FAILED.format(**counts, problems="; ".join(problems))


def lab_twin_sections(review: ParamsReview) -> list[tuple[str, str, str]]:
    """A block per target: its post-checks on the twin."""
    answer = review.get("lab_twin")
    if answer is None:
        return []
    return [
        (messages.SECTION_TWIN.format(device=name), checks_text(checks, name), "text")
        for name, checks in answer["checks"].items()
    ]


def _pair(session: SessionState) -> str:
    a, b = sorted((session.device, session.peer or session.address))
    return messages.SESSION_PAIR.format(a=a, b=b)


def _up(sessions: list[SessionState]) -> list[str]:
    """`OSPF Full on R1–R2, R2–R3` per protocol, each pair once."""
    said = []
    for protocol, name in PROTOCOL_NAMES.items():
        pairs = sorted({_pair(s) for s in sessions if s.protocol == protocol and s.up})
        if pairs:
            up, joined = UP_STATES[protocol], ", ".join(pairs)
            said.append(messages.SESSIONS_UP.format(protocol=name, state=up, pairs=joined))
    return said


def _down(sessions: list[SessionState]) -> list[str]:
    """`R2–R3 stays Init (OSPF)` for each pair a side of which is not up."""
    said: dict[str, str] = {}
    for s in sessions:
        pair, protocol = _pair(s), PROTOCOL_NAMES[s.protocol]
        if s.up or pair in said:
            continue
        template = messages.SESSION_DOWN if s.state else messages.SESSION_ABSENT
        said[pair] = template.format(pair=pair, state=s.state, protocol=protocol)
    return list(said.values())


def _routes_met(checks: dict[str, DeviceChecks]) -> list[str]:
    return [
        messages.LOOPBACK_LEARNED.format(device=name, peer=fact["peer"], prefix=fact["key"])
        if fact["check"] == "loopback_routes"
        else messages.ROUTE_HELD.format(device=name, prefix=fact["key"])
        for name, outcome in checks.items()
        for fact in outcome["met"]
        if fact["check"] not in ("ospf_neighbors", "bgp_sessions")
    ]


def _routes_missing(checks: dict[str, DeviceChecks]) -> list[str]:
    return [
        messages.ROUTE_LACKING.format(device=name, prefix=missing["fact"]["key"])
        for name, outcome in checks.items()
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
