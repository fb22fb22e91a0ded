"""What the gates add for templates that outlive a change: the template test on a simulated
copy of a target, and the newer saved versions of the templates a change uses.

The template test renders the example (with the example parameters and, for templates reading
`facts`, the facts of the family's first target) and pushes it to a throwaway simulated device
started from that target's running configuration: one device per vendor family, bounded by a
timeout. Its complaints (`% Invalid input …`) are shown at the template gate; a line it placed
outside the template's sections (`workflow.landing`) sends the template back to the planner.
The real lab is never touched.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, NotRequired, TypedDict

from workflow.landing import twin_landing
from workflow.library.compose import proposal_parts
from workflow.model import TemplateProposal, Topology
from workflow.ports import ConfigTrial, SavedTemplates
from workflow.sections import declared_sections


class TemplateTest(TypedDict):
    device: str  # the target whose running config the simulated copy started from
    platform: str
    lines: int
    ok: bool
    errors: list[str]  # "line: device reply", one per refused line
    # why the test could not run: no simulator for `platform`, or none finished within `seconds`
    skipped: NotRequired[Literal["no_simulator", "timeout"]]
    seconds: NotRequired[float]  # the bound that ran out ("timeout")
    outside: NotRequired[list[str]]  # example lines the copy placed outside the sections


async def template_tests(
    trial: ConfigTrial,
    template: TemplateProposal,
    examples: dict[str, list[str]],
    topology: Topology,
    seconds: float,
) -> dict[str, TemplateTest]:
    """Per vendor family of the targets: its example pushed to a simulated copy of a target,
    and where its lines landed there checked against the sections."""
    firsts: dict[str, str] = {}
    for name in template["targets"]:
        facts = topology["devices"].get(name)
        if facts is not None and "error" not in facts:
            firsts.setdefault(facts["family"], name)
    sections = declared_sections(template)
    tests: dict[str, TemplateTest] = {}
    for family, device in sorted(firsts.items()):
        facts = topology["devices"][device]
        lines = examples.get(family, [])
        landing = await twin_landing(trial, facts, lines, sections, seconds)
        test = TemplateTest(
            device=device,
            platform=facts["platform"],
            lines=len(lines),
            ok=not landing["refused"] and not landing["outside"],
            errors=landing["refused"],
        )
        if landing["outside"]:
            test["outside"] = landing["outside"]
        if landing.get("skipped") == "timeout":
            test["skipped"], test["seconds"] = "timeout", seconds
        elif landing.get("skipped") == "no_twin":
            test["skipped"] = "no_simulator"
        tests[family] = test
    return tests


def landed_outside_errors(tests: Mapping[str, TemplateTest]) -> list[str]:
    """The example lines a twin placed outside the sections, as errors for the planner."""
    return [
        f"{family} example line `{place}` lands outside the sections on a copy of "
        f"{test['device']} (a command its section does not know runs in the enclosing one: "
        "declare only lines that belong to each section)"
        for family, test in sorted(tests.items())
        for place in test.get("outside", [])
    ]


async def newer_versions(
    saved: SavedTemplates | None, template: TemplateProposal
) -> dict[str, int]:
    """{name: newest version} for each saved template the proposal uses in an older version."""
    used = {p["name"]: p["version"] for p in proposal_parts(template) if p["version"] is not None}
    if saved is None or not used:
        return {}
    latest = await saved.latest_versions(sorted(used))
    return {name: newest for name, newest in sorted(latest.items()) if newest > (used[name] or 0)}
