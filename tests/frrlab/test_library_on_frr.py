"""Every built-in template's FRR variant, rendered from its example, is accepted by a real FRR
router, and verification finds every line in the running config FRR shows afterwards."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from frrlab import FrrLab, generated_topology
from workflow.devices.diffing import missing_lines
from workflow.library.catalog import load_catalog
from workflow.templates.facts import example_facts
from workflow.templates.rendering import render
from workflow.templates.validation import validate_params

pytestmark = [
    pytest.mark.frr,
    pytest.mark.usefixtures("frr_host"),
    pytest.mark.xdist_group("frr-lab"),
]

FRR_TEMPLATES = [
    name for name in load_catalog().names() if "frr" in load_catalog().get(name).templates
]


@pytest.fixture(scope="module")
def router(frr_host: None) -> Iterator[FrrLab]:
    with FrrLab.run(generated_topology(1)) as lab:
        yield lab


def test_the_library_has_frr_variants_of_the_routing_templates() -> None:
    assert {
        "ospf",
        "bgp",
        "static_route",
        "interface_description",
        "interface_address",
        "prefix_list",
        "route_map",
    } <= set(FRR_TEMPLATES)


@pytest.mark.parametrize("name", FRR_TEMPLATES)
def test_example_is_accepted_and_verified_by_frr(router: FrrLab, name: str) -> None:
    template = load_catalog().get(name)
    example = with_linux_interfaces(template.params_schema, template.example_params)
    params, errors = validate_params(template.params_schema, example)
    assert not errors
    lines = render(template.templates["frr"], params, facts=example_facts("frr"))
    answer = router.vtysh("R1", "configure terminal", *lines)  # FrrLabError if FRR refuses one
    assert answer.strip() == ""
    assert missing_lines(router.vtysh("R1", "show running-config"), lines) == []


def with_linux_interfaces(schema: Mapping[str, Any], example: Mapping[str, Any]) -> dict[str, Any]:
    """The example with its IOS interface names (GigabitEthernet0/1: too long for Linux) as the
    FRR example device's (eth1); Junos-only names are left alone."""
    params = dict(example)
    for key, spec in schema.items():
        if spec["type"] == "interface" and key in params:
            params[key] = "eth1"
        fields = spec.get("fields", {})
        if "interface" in fields and key in params:
            params[key] = [{**entry, "interface": "eth1"} for entry in params[key]]
    return params
