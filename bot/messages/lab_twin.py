"""The lab's twin at the params gate: what the previewed lines did on a twin of the whole lab
(real FRR routers of its own), or why there was none."""

from __future__ import annotations

TWIN_PASSED = "\n🧪 On a twin of the lab ({routers} routers, {seconds:.1f} s): {facts}."
TWIN_PASSED_NOTHING = "every post-check passes"
TWIN_FAILED = (
    "\n⚠️ On a twin of the lab ({routers} routers, {seconds:.1f} s) the post-checks fail: "
    "{problems}. Execute pushes exactly the lines shown, failure and all."
)
TWIN_NONE = "\nℹ️ No twin of the lab for this change: {why}"
NO_TWIN_WHY = {
    "too_large": "the lab has {routers} routers, a twin at most {detail} "
    "(LABBOT_LAB_TWIN_ROUTERS).",
    "not_frr": "a twin runs FRR routers only, and {detail} are not.",
    "unreadable": "{detail} could not be read; read the lab again (`lab`) and retry.",
    "no_host": "this host cannot run FRR routers ({detail}).",
    "busy": "every twin slot is in use (LABBOT_LAB_TWINS); the post-checks still run after "
    "the push.",
    "timeout": "it did not finish within {detail} s (raise LABBOT_LAB_TWIN_SECONDS).",
    "error": "it could not run: {detail}",
}
SESSIONS_UP = "{protocol} {state} on {pairs}"
SESSION_DOWN = "{pair} stays {state} ({protocol})"
SESSION_ABSENT = "{pair} never meets ({protocol}: no neighbour)"
SESSION_DOWN_WHY = "{pair} stays {state} ({protocol}): {why}"
SESSION_ABSENT_WHY = "{pair} never meets ({protocol}): {why}"
# why, as the twin's routers showed it (workflow.phases.lab_twin.Cause: device, peer, mine, theirs)
TWIN_CAUSES = {
    "area": "area {mine} on {device}, area {theirs} on {peer}",
    "hello": "hellos every {mine} s on {device}, every {theirs} s on {peer}",
    "dead": "dead interval {mine} s on {device}, {theirs} s on {peer}",
    "mtu": "MTU {mine} on {device}, {theirs} on {peer}",
    "subnet": "{mine} on {device} and {theirs} on {peer} are not one subnet",
    "ospf_off": "{device} runs no OSPF on {mine}",
    "peer_as": "{device} expects AS {mine}, {peer} is AS {theirs}",
    "no_peer": "{device} has no neighbour {mine}",
    "no_bgp": "{device} runs no BGP",
    "notice": "{device}: {mine}",
}
SESSION_PAIR = "{a}–{b}"
LOOPBACK_LEARNED = "{device} learns {peer}'s loopback {prefix}"
PREFIX_LEARNED = "{device} learns {prefix} from {peer}"
ROUTE_HELD = "{device} holds {prefix}"
ROUTE_LACKING = "{device} lacks {prefix}"
TWIN_REFUSED = "{device} refused `{complaint}`"
TWIN_MORE = " and {more} more"
SECTION_TWIN = "{device} on the lab's twin"
TWIN_DISAGREES = (
    "\n⚠️ The lab and its twin disagree: {devices}. The twin ran the same lines on the "
    "configurations read before the change, so what differs is on the lab: a link, a router "
    "outside the change, or something changed since."
)
TWIN_DISAGREES_HOW = {
    "twin_passed": "{device} failed its post-checks, which passed on the twin",
    "twin_failed": "{device} passed its post-checks, which failed on the twin",
}
