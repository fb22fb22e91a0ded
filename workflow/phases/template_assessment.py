"""One assessment of a template, before anyone relies on it: the checks (workflow.templates.check:
syntax, variables, the example rendering, deny-list, targets, sections), then the template test.
The graph runs it before the template gate; `labbot templates save` before storing a file.

The template test renders the example (with the example parameters and, for templates reading
`facts`, the facts of the family's first target) and types it into the template's twin
(`ports.ConfigTrial`) started from that target's running configuration: one device per vendor
family, bounded by a timeout. A line it placed outside the template's sections
(`workflow.phases.landing`) or stored in a form the deny-list refuses (FRR stores `lo fi X` as `log
file X`) refuses the template (the graph sends it back to the planner). A line it refused (`%
Invalid input …`) is shown at the template gate — the example's values are not a device's (an
IOS interface name on FRR) — and refuses a file at `labbot templates save`; at the params gate,
each device's own lines on its own twin, a refused line refuses the change. The real lab is
never touched.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, NotRequired, TypedDict

from base.errors import TemplateError
from workflow.model import TemplateProposal, Topology
from workflow.phases.landing import landed_denials, twin_landing
from workflow.ports import ConfigTrial
from workflow.safety.allowances import allowed_by
from workflow.safety.deny import DenyList
from workflow.safety.sections import declared_sections, is_restore
from workflow.templates.check import TemplateCheck, check_template
from workflow.templates.render_pool import RenderPool, run_capped

__all__ = ["TemplateTest", "assess_template", "refused_example_lines"]


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
    denied: NotRequired[list[str]]  # example lines the copy stored in a form the deny-list refuses


@dataclass(frozen=True)
class TemplateAssessment:
    """`errors`: why the template is refused ([]: it may be shown); `blocked`: some error is a
    policy hit. `template` carries the sections the check found; `tests` is None when no test
    ran (no twin given, or the checks refused it)."""

    template: TemplateProposal
    errors: list[str]
    blocked: bool
    check: TemplateCheck | None = None  # None: the template could not be checked at all
    tests: dict[str, TemplateTest] | None = None


async def assess_template(
    template: TemplateProposal,
    topology: Topology,
    deny_list: DenyList,
    trial: ConfigTrial | None,
    seconds: float,
    renderer: RenderPool | None = None,
) -> TemplateAssessment:
    """The checks (in `renderer`'s capped workers when given), then, with a `trial`, the
    template test on a twin of the first target of each family."""
    try:
        check = await run_capped(renderer, check_template, template, topology, deny_list)
    except TemplateError as err:
        return TemplateAssessment(template, [str(err)], blocked=False)
    if check.errors:
        return TemplateAssessment(template, check.errors, check.blocked, check)
    if not is_restore(template):
        template = TemplateProposal(**{**template, "sections": check.sections})
    if trial is None:
        return TemplateAssessment(template, [], blocked=False, check=check)
    tests = await template_tests(trial, template, check.examples, topology, seconds, deny_list)
    problems = landed_outside_errors(tests) + stored_denied_lines(tests)
    return TemplateAssessment(template, problems, bool(problems), check, tests)


async def template_tests(
    trial: ConfigTrial,
    template: TemplateProposal,
    examples: dict[str, list[str]],
    topology: Topology,
    seconds: float,
    deny_list: DenyList,
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
        stored = landed_denials(
            deny_list, {device: landing}, {device: family}, allowed_by(template)
        )
        test = TemplateTest(
            device=device,
            platform=facts["platform"],
            lines=len(lines),
            ok=not landing["refused"] and not landing["outside"] and not stored,
            errors=landing["refused"],
        )
        if landing["outside"]:
            test["outside"] = landing["outside"]
        if stored:
            test["denied"] = stored
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


def refused_example_lines(tests: Mapping[str, TemplateTest]) -> list[str]:
    """The example lines a twin refused (`% Invalid input …`), one per line and family."""
    return [
        f"template test ({family}): {complaint}"
        for family, test in sorted(tests.items())
        for complaint in test["errors"]
    ]


def stored_denied_lines(tests: Mapping[str, TemplateTest]) -> list[str]:
    """The example lines a twin stored in a form the deny-list refuses, as errors."""
    return [
        f"template test ({family}): {denial}"
        for family, test in sorted(tests.items())
        for denial in test.get("denied", [])
    ]
