"""Every built-in template's example is accepted by the simulated device of its vendor, and
every line lands inside the sections the template declares.

The template test shows refused lines at the template gate and refuses a template whose lines
land outside its sections, so a simulator that refused valid syntax, or put a line elsewhere
than the device does, would cry wolf on the library's own templates.
"""

from __future__ import annotations

import pytest

from labsim.trial import twin_run
from workflow.devices.diffing import landed_paths
from workflow.library.catalog import load_catalog
from workflow.phases.landing import outside_places
from workflow.templates.facts import example_facts
from workflow.templates.rendering import render
from workflow.templates.validation import validate_params

SIMULATED = ("cisco_ios", "arista_eos")
CASES = [
    (name, family)
    for name in load_catalog().names()
    for family in load_catalog().get(name).templates
    if family in SIMULATED
]


@pytest.mark.parametrize(("name", "family"), CASES)
def test_example_is_accepted_by_the_simulated_device(name: str, family: str) -> None:
    template = load_catalog().get(name)
    params, errors = validate_params(template.params_schema, template.example_params)
    assert not errors
    lines = render(template.templates[family], params, facts=example_facts(family))
    run = twin_run("R1", family, "hostname twin\n", lines)
    assert run.refused == []
    landed = landed_paths(run.before, run.after, family)
    assert landed and outside_places(landed, template.sections) == []
