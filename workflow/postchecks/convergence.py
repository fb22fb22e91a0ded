"""How long the post-checks wait: the template's timeout, longer where OSPF adjacencies must come
Full and the timers say they cannot in time (pure).

On a broadcast link a router waits one dead interval before it elects the DR and goes on to
Full: with the default 10 s hellos (dead 40 s) FRR came Full near 45 s and its routes near
55 s, close to the library's 60 s. The wait is therefore at least twice the slowest dead interval
a device runs after the change plus a margin (100 s with default timers, the template's own with
lab timers), never more than the spec's maximum. The dead interval is what the pushed lines set,
else what the running configuration holds, else the default.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from workflow.postcheck_spec import MAX_TIMEOUT, PostChecks

__all__ = ["post_check_seconds"]

DEFAULT_DEAD_SECONDS = 40  # IOS, EOS, FRR on broadcast links: hellos every 10 s, dead 4 x
MARGIN_SECONDS = 20  # routes after Full (SPF, LSA pacing), a loaded host
DEAD = re.compile(r"^\s*ip ospf dead-interval (\d+)\s*$")
HELLO = re.compile(r"^\s*ip ospf hello-interval (\d+)\s*$")


def post_check_seconds(
    checks: PostChecks, lines: Mapping[str, Sequence[str]], configs: Mapping[str, str]
) -> float:
    """The wait for `checks` on the devices `lines` were pushed to (`configs`: their running
    configurations read before)."""
    if not any(check["kind"] == "ospf_neighbors" for check in checks["checks"]):
        return checks["timeout"]
    dead = max(
        (_dead_seconds(pushed, configs.get(name, "")) for name, pushed in lines.items()),
        default=DEFAULT_DEAD_SECONDS,
    )
    return min(MAX_TIMEOUT, max(checks["timeout"], 2 * dead + MARGIN_SECONDS))


def _dead_seconds(pushed: Sequence[str], running: str) -> int:
    """The slowest dead interval the lines set, else the running configuration's, else the
    default (a hello interval alone means dead 4 x hello)."""
    for source in (pushed, running.splitlines()):
        found = list(_intervals(source))
        if found:
            return max(found)
    return DEFAULT_DEAD_SECONDS


def _intervals(lines: Iterable[str]) -> Iterable[int]:
    for line in lines:
        if dead := DEAD.match(line):
            yield int(dead[1])
        elif hello := HELLO.match(line):
            yield 4 * int(hello[1])
