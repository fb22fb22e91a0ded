"""What the gates add for templates that outlive a change: the template test on a simulated
copy of a target, and the newer saved versions of the templates a change uses.

The template test renders the example (with the example parameters and, for templates reading
`facts`, the facts of the family's first target) and pushes it to a throwaway simulated device
started from that target's running configuration: one device per vendor family, bounded by a
timeout. Its complaints (`% Invalid input …`) are shown at the template gate; the real lab is
never touched.
"""

from __future__ import annotations

import asyncio
from typing import Literal, NotRequired, TypedDict

from workflow.library.compose import proposal_parts
from workflow.model import TemplateProposal, Topology
from workflow.ports import ConfigTrial, SavedTemplates


class TemplateTest(TypedDict):
    device: str  # the target whose running config the simulated copy started from
    platform: str
    lines: int
    ok: bool
    errors: list[str]  # "line: device reply", one per refused line
    # why the test could not run: no simulator for `platform`, or none finished within `seconds`
    skipped: NotRequired[Literal["no_simulator", "timeout"]]
    seconds: NotRequired[float]  # the bound that ran out ("timeout")


async def template_tests(
    trial: ConfigTrial,
    template: TemplateProposal,
    examples: dict[str, list[str]],
    topology: Topology,
    seconds: float,
) -> dict[str, TemplateTest]:
    """Per vendor family of the targets: its example pushed to a simulated copy of a target."""
    firsts: dict[str, str] = {}
    for name in template["targets"]:
        facts = topology["devices"].get(name)
        if facts is not None and "error" not in facts:
            firsts.setdefault(facts["family"], name)
    tests: dict[str, TemplateTest] = {}
    for family, device in sorted(firsts.items()):
        facts = topology["devices"][device]
        lines = examples.get(family, [])
        test = TemplateTest(
            device=device, platform=facts["platform"], lines=len(lines), ok=True, errors=[]
        )
        try:
            async with asyncio.timeout(seconds):
                errors = await trial.trial(
                    device, facts["platform"], facts["running_config"], lines
                )
        except TimeoutError:
            test["skipped"], test["seconds"] = "timeout", seconds
        else:
            if errors is None:
                test["skipped"] = "no_simulator"
            else:
                test["ok"], test["errors"] = not errors, list(errors)
        tests[family] = test
    return tests


async def newer_versions(
    saved: SavedTemplates | None, template: TemplateProposal
) -> dict[str, int]:
    """{name: newest version} for each saved template the proposal uses in an older version."""
    used = {p["name"]: p["version"] for p in proposal_parts(template) if p["version"] is not None}
    if saved is None or not used:
        return {}
    latest = await saved.latest_versions(sorted(used))
    return {name: newest for name, newest in sorted(latest.items()) if newest > (used[name] or 0)}
