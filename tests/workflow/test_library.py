"""The template library and the library planner, against a lab-like topology."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from base.errors import PlanningError
from workflow.library.catalog import load_catalog
from workflow.library.planner import LibraryPlanner
from workflow.model import PlanRequest, Topology
from workflow.safety.deny import DenyList
from workflow.safety.sections import outside_sections
from workflow.templates.check import validate_template
from workflow.templates.rendering import render
from workflow.templates.validation import validate_params

TOPOLOGY: Topology = json.loads(
    (Path(__file__).parent / "fixtures" / "lab_topology.json").read_text()
)
CATALOG = load_catalog()
VARIANTS = [(name, family) for name in CATALOG.names() for family in CATALOG.get(name).families]


def test_library_size_and_vendors() -> None:
    assert len([n for n in CATALOG.names() if "cisco_ios" in CATALOG.get(n).families]) >= 20
    for family in ("arista_eos", "juniper_junos", "huawei_vrp"):
        assert len([n for n in CATALOG.names() if family in CATALOG.get(n).families]) >= 8


@pytest.mark.parametrize("name", CATALOG.names())
def test_every_template_validates(name: str) -> None:
    assert validate_template(CATALOG.as_proposal(name, [])) == []


@pytest.mark.parametrize(("name", "family"), VARIANTS)
def test_every_variant_renders_its_example_cleanly(name: str, family: str) -> None:
    template = CATALOG.get(name)
    params, errors = validate_params(template.params_schema, template.example_params)
    lines = render(template.templates[family], params)
    assert errors == [] and lines and DenyList().check(lines, family, template.allow) == []
    assert outside_sections(lines, template.sections) == []  # inside what it declares


@pytest.mark.parametrize("name", CATALOG.names())
def test_every_template_declares_its_sections_and_they_are_in_its_hash(name: str) -> None:
    template = CATALOG.get(name)
    proposal = CATALOG.as_proposal(name, [])
    assert template.sections and proposal["sections"] == list(template.sections)
    narrower = dataclasses.replace(template, sections=template.sections[:-1] or ("x *",))
    assert narrower.as_parts()[0]["sha256"] != template.as_parts()[0]["sha256"]


def test_get_suggests_close_names() -> None:
    with pytest.raises(PlanningError, match="Did you mean ospf"):
        CATALOG.get("ospff")
    assert CATALOG.get("static-route").name == "static_route"


@pytest.mark.parametrize(
    ("text", "best"),
    [
        ("configure OSPF area 0", "ospf"),
        ("add an extended acl", "extended_acl"),
        ("make Gi0/2 an access port", "access_port"),
        ("static route please", "static_route"),
    ],
)
def test_match_by_keywords(text: str, best: str) -> None:
    assert CATALOG.match(text)[0].name == best


async def _plan(text: str, feedback: str | None = None) -> tuple[Any, Any]:
    planner = LibraryPlanner()
    request = PlanRequest(text=text, topology=TOPOLOGY, feedback=feedback)
    proposal = await planner.propose_template(request)
    return proposal, await planner.propose_params(request, proposal)


async def test_ospf_on_all_routers_derives_networks_and_router_ids() -> None:
    proposal, params = await _plan("configure OSPF area 0 on all routers")
    assert proposal["targets"] == ["R1", "R2", "R3"]
    assert "R4 (facts unavailable" in proposal["description"]
    assert "PC1" not in proposal["description"]  # not a router, so not chosen at all
    assert params["tokens"]["total_tokens"] == 0
    r1 = params["device_params"]["R1"]
    assert (
        r1["networks"] == ["10.0.12.0/24", "10.0.13.0/24", "10.255.255.1/32"]
        and r1["router_id"] == "10.255.255.1"
    )
    assert (
        render(proposal["templates"]["cisco_ios"], r1)[2] == " network 10.0.12.0 0.0.0.255 area 0"
    )
    assert params["device_params"]["R3"]["interfaces"] == ["ge-0/0/0.0", "lo0.0"]


@pytest.mark.parametrize(
    ("text", "feedback", "targets", "device", "expected"),
    [
        ("apply ospf to R* area=1", None, ["R1", "R2", "R3"], "R2", {"area": "1"}),
        ("configure OSPF on R1", "use process 10", ["R1"], "R1", {"process_id": 10}),
        ("configure OSPF on R1", "area=2", ["R1"], "R1", {"area": "2"}),
        ("set ntp server 10.0.0.1 on R1 R2", None, ["R1", "R2"], "R2", {"servers": ["10.0.0.1"]}),
        (
            "apply ntp to R1,R2 servers=10.0.0.1,10.0.0.2",
            None,
            ["R1", "R2"],
            "R1",
            {"servers": ["10.0.0.1", "10.0.0.2"]},
        ),
        (
            "apply bgp to R1",
            None,
            ["R1"],
            "R1",
            {
                "asn": 65001,
                "neighbors": [
                    {"address": "10.0.12.2", "remote_as": 65002},
                    {"address": "10.0.13.3", "remote_as": 65003},
                ],
            },
        ),
        (
            "apply bgp to r2 asn=65000",
            None,
            ["R2"],
            "R2",
            {"asn": 65000, "neighbors": [{"address": "10.0.12.1", "remote_as": 65000}]},
        ),
        ("add vlan 10 name USERS on SW1", None, ["SW1"], "SW1", {"vlan_id": 10, "name": "USERS"}),
        ("apply hostname to R2", None, ["R2"], "R2", {"hostname": "R2"}),
        (
            "apply interface_description to R1",
            None,
            ["R1"],
            "R1",
            {
                "descriptions": [
                    {"interface": "GigabitEthernet0/0", "description": "to R2 GigabitEthernet0/0"},
                    {"interface": "GigabitEthernet0/1", "description": "to R3 ge-0/0/0.0"},
                ]
            },
        ),
        ("configure ospf on R1", "apply eigrp", ["R1"], "R1", {"as_number": 100}),
        ('apply banner to R1 text="Lab only"', None, ["R1"], "R1", {"text": "Lab only"}),
    ],
)
async def test_requests_the_planner_understands(
    text: str, feedback: str | None, targets: list[str], device: str, expected: dict[str, Any]
) -> None:
    proposal, params = await _plan(text, feedback)
    assert proposal["targets"] == targets
    assert expected.items() <= params["device_params"][device].items()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("make coffee", "apply <template> to"),
        ("apply ospf to R9", "targets unknown: 'R9'"),
        ("apply ospf to X*", "targets no_match: 'X\\*'"),
        ("apply vlan to SW1", "vlan_id' is required"),
        ("apply ospf to R1 colour=red", "has no parameter 'colour'"),
        ("apply eigrp to R3", "no juniper_junos variant"),
        ('apply banner to R1 text="hi\nreload"', "line break or control character"),
        ('apply banner to R1 text="hi\ud800"', "line break or control character"),
    ],
)
async def test_planner_explains_what_it_cannot_do(text: str, message: str) -> None:
    with pytest.raises(PlanningError, match=message):
        await _plan(text)
