"""Where a template's lines land, in the device's own view: on the template's twin before the
params gate, and on each device after the push.

The twin (`ports.ConfigTrial`: labsim for IOS/EOS, a real FRR router for FRR) is started from a
target's running configuration; the lines are typed into it and its configuration before and
after is diffed (`workflow.devices.diffing.landed_paths`). Each landed line is checked against
the template's sections: a line IOS dropped from `router ospf 1` to global configuration is
global here, whatever its indentation said. After a push the same check reads the device's
"before" and "after" backups. The gate shows every landed line at its place.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Mapping, Sequence
from typing import Literal, NotRequired, TypedDict

from workflow.devices.diffing import landed_paths
from workflow.model import DeviceFacts, TemplateProposal
from workflow.ports import ConfigTrial
from workflow.safety.allowances import allowed_by
from workflow.safety.deny import DenyList
from workflow.safety.sections import misplaced_landings

__all__ = ["Landing", "pushed_outside", "twin_landings", "twin_problems"]

PLACE = " > "  # between a landed line's headers and itself


class Landing(TypedDict):
    """One device's lines as its twin placed them (shown at the params gate)."""

    twin: str  # the platform of the copy the lines were typed into
    landed: list[str]  # the twin's own diff: each line at its place, headers as context
    outside: list[str]  # landed lines outside the sections, as "header > line"
    refused: list[str]  # `line: reply` for each line the twin refused
    # why the lines were not tried: no twin for this platform, or none answered within `seconds`
    skipped: NotRequired[Literal["no_twin", "timeout"]]


async def twin_landing(
    trial: ConfigTrial,
    facts: DeviceFacts,
    lines: Sequence[str],
    sections: Sequence[str] | None,
    seconds: float,
) -> Landing:
    """`lines` typed into a twin of the device `facts` describes, read back and checked."""
    landing = Landing(twin=facts["platform"], landed=[], outside=[], refused=[])
    try:
        async with asyncio.timeout(seconds):
            run = await trial.trial(
                facts["name"], facts["platform"], facts["running_config"], lines
            )
    except TimeoutError:
        landing["skipped"] = "timeout"
        return landing
    if run is None:
        landing["skipped"] = "no_twin"
        return landing
    paths = landed_paths(run.before, run.after, facts["platform"])
    landing["landed"] = landed_text(paths)
    landing["outside"] = outside_places(paths, sections)
    landing["refused"] = list(run.refused)
    return landing


async def twin_landings(
    trial: ConfigTrial,
    plan: Mapping[str, Sequence[str]],
    devices: Mapping[str, DeviceFacts],
    sections: Sequence[str] | None,
    seconds: float,
) -> dict[str, Landing]:
    """Per device of `plan` (its rendered lines): where its lines land on its own twin."""
    names = sorted(plan)
    found = await asyncio.gather(
        *(twin_landing(trial, devices[n], plan[n], sections, seconds) for n in names)
    )
    return dict(zip(names, found, strict=True))


def outside_places(paths: Sequence[Sequence[str]], sections: Sequence[str] | None) -> list[str]:
    """The landed lines outside `sections`, each as "header > line"."""
    return [PLACE.join(m.place) for m in misplaced_landings(paths, sections)]


def pushed_outside(
    configs: Mapping[str, tuple[str, str]],
    platforms: Mapping[str, str],
    sections: Sequence[str] | None,
) -> dict[str, list[str]]:
    """Per pushed device ((before, after) running configs): the lines its push left outside
    the sections, at their place; devices with none are left out."""
    found = {
        name: outside_places(landed_paths(before, after, platforms[name]), sections)
        for name, (before, after) in sorted(configs.items())
    }
    return {name: places for name, places in found.items() if places}


def landed_text(paths: Sequence[Sequence[str]]) -> list[str]:
    """The landed lines as a diff the device would print: `+ ` before each landed line (a
    removed one reads `no …`), its headers above it as context, indented by depth."""
    shown: list[str] = []
    text: list[str] = []
    for path in paths:
        *headers, line = path
        common = _shared(shown, headers)  # headers shown already
        text.extend("  " + " " * depth + headers[depth] for depth in range(common, len(headers)))
        text.append("+ " + " " * len(headers) + line)
        shown = list(path)
    return text


def _shared(first: Sequence[str], second: Sequence[str]) -> int:
    """How many leading items the two share."""
    pairs = zip(first, second, strict=False)
    return sum(1 for _ in itertools.takewhile(lambda pair: pair[0] == pair[1], pairs))


def landing_errors(landings: Mapping[str, Landing]) -> list[str]:
    """The lines a device's twin placed outside the sections, and those it refused (a command
    the platform's model knows in no mode on the way), as errors for the planner."""
    outside = [
        f"{name}: `{place}` lands outside the sections on a copy of {name} (a command its "
        "section does not know runs in the enclosing one)"
        for name, landing in sorted(landings.items())
        for place in landing["outside"]
    ]
    refused = [
        f"{name}: a copy of {name} refused {complaint} — {name} would refuse it too (a command "
        "no mode on the way takes, or a value it cannot take there), so nothing is sent"
        for name, landing in sorted(landings.items())
        for complaint in landing["refused"]
    ]
    return outside + refused


def landed_config(landing: Landing) -> list[str]:
    """The twin's landed lines with their headers, indented as a configuration (what the
    device stored, abbreviations spelled out), for the deny-list to judge again."""
    return [line[2:] for line in landing["landed"]]


def landed_denials(
    deny_list: DenyList,
    landings: Mapping[str, Landing],
    families: Mapping[str, str],
    allow: Sequence[str],
) -> list[str]:
    """The lines a device's twin stored in a form the deny-list refuses (`lo fi x` stored as
    `log file x`), as errors: the device's own spelling is judged, not only the typed one."""
    return [
        f"{name}: on a copy of {name} `{hit.line.strip()}` is stored, which is refused "
        f"({hit.explained})"
        for name, landing in sorted(landings.items())
        for hit in deny_list.check(landed_config(landing), families[name], allow)
    ]


def twin_problems(
    deny_list: DenyList,
    landings: Mapping[str, Landing],
    families: Mapping[str, str],
    template: TemplateProposal,
) -> list[str]:
    """Why the twins' landings refuse the lines: outside the sections, refused by the copy, or
    stored in a form the deny-list refuses (unless `template` allows the rule)."""
    allow = allowed_by(template)
    return landing_errors(landings) + landed_denials(deny_list, landings, families, allow)
