"""The `facts` templates read: built from the lab, rendered per device, refused when unsafe."""

from __future__ import annotations

import copy

from workflow.model import DeviceFacts, InterfaceFacts, TemplateProposal, Topology
from workflow.phases.previews import preview_devices
from workflow.safety.deny import DenyList
from workflow.templates.check import check_template
from workflow.templates.facts import example_facts, lab_facts
from workflow.templates.validation import refuse_unsafe_facts


def router(name: str, *interfaces: tuple[str, str | None, bool]) -> DeviceFacts:
    return DeviceFacts(
        name=name,
        platform="cisco_ios_telnet",
        family="cisco_ios",
        interfaces=[InterfaceFacts(name=n, address=a, enabled=e) for n, a, e in interfaces],
        running_config=f"hostname {name}\n",
    )


LAB = Topology(
    devices={
        "R1": router(
            "R1",
            ("GigabitEthernet0/0", "10.0.12.1/24", True),
            ("GigabitEthernet0/1", None, False),
            ("Loopback0", "1.1.1.1/32", True),
        ),
        "R2": router(
            "R2", ("GigabitEthernet0/0", "10.0.12.2/24", True), ("Gi0/2", "10.0.99.9/24", True)
        ),
        "R3": router("R3", ("GigabitEthernet0/0", None, True)),
    },
    links=[
        {
            "a_device": "R1",
            "a_interface": "GigabitEthernet0/0",
            "b_device": "R2",
            "b_interface": "GigabitEthernet0/0",
        }
    ],
    unusable=[],
)
LINKS_TEMPLATE = (
    "router ospf {{ pid }}\n router-id {{ facts.router_id }}\n"
    "{% for n in facts.neighbors %}interface {{ n.interface }}\n"
    " description to {{ n.device }} {{ n.device_interface }} ({{ n.address }})\n{% endfor %}"
)


def proposal(source: str, targets: list[str]) -> TemplateProposal:
    return TemplateProposal(
        name="custom",
        description="test",
        templates={"cisco_ios": source},
        params_schema={"pid": {"type": "int", "default": 1}},
        example_params={},
        targets=targets,
        source="llm",
        sections=["router ospf * / router-id *", "interface * / description *"],
    )


def test_lab_facts_hold_interfaces_router_id_and_neighbors() -> None:
    facts = lab_facts(LAB)
    r1, r2 = facts["R1"], facts["R2"]
    assert r1["router_id"] == "1.1.1.1"  # the loopback
    assert r2["router_id"] == "10.0.99.9"  # no loopback: the highest address, as IOS picks
    assert "router_id" not in facts["R3"]  # no address at all: a template using it fails
    assert [i["loopback"] for i in r1["interfaces"]] == [False, False, True]
    assert r1["interfaces"][1] == {
        "name": "GigabitEthernet0/1",
        "address": None,
        "enabled": False,
        "loopback": False,
    }
    assert r1["neighbors"] == [
        {
            "interface": "GigabitEthernet0/0",
            "device": "R2",
            "device_interface": "GigabitEthernet0/0",
            "address": "10.0.12.2",
        }
    ]
    assert r2["neighbors"][0]["address"] == "10.0.12.1" and facts["R3"]["neighbors"] == []


def test_every_device_renders_with_its_own_facts_and_the_preview_shows_them() -> None:
    previews, errors = preview_devices(
        proposal(LINKS_TEMPLATE, ["R1", "R2"]), {"R1": {}, "R2": {"pid": 2}}, LAB, DenyList()
    )
    assert errors == []
    assert previews["R1"]["lines"] == [
        "router ospf 1",
        " router-id 1.1.1.1",
        "interface GigabitEthernet0/0",
        " description to R2 GigabitEthernet0/0 (10.0.12.2)",
    ]
    assert previews["R2"]["lines"][:2] == ["router ospf 2", " router-id 10.0.99.9"]
    assert previews["R1"]["facts"] == lab_facts(LAB)["R1"]  # what the params gate hashes


def test_a_template_not_reading_facts_previews_without_them() -> None:
    previews, errors = preview_devices(
        proposal("router ospf {{ pid }}", ["R1"]), {"R1": {}}, LAB, DenyList()
    )
    assert errors == [] and "facts" not in previews["R1"]


def test_a_device_without_the_fact_a_template_needs_is_an_error_naming_it() -> None:
    previews, errors = preview_devices(
        proposal(LINKS_TEMPLATE, ["R1", "R3"]), {"R1": {}, "R3": {}}, LAB, DenyList()
    )
    assert set(previews) == {"R1"}
    assert errors == [
        "R3: line 2: 'dict object' has no attribute 'router_id'"
        " (add it to the parameters or remove it from the template)"
    ]


def test_the_template_example_uses_a_targets_facts_else_a_made_up_router() -> None:
    template = proposal(LINKS_TEMPLATE, ["R2"])
    check = check_template(template, LAB, DenyList())
    assert check.errors == []
    assert check.example_facts == {"cisco_ios": lab_facts(LAB)["R2"]}
    assert check.examples["cisco_ios"][1] == " router-id 10.0.99.9"
    made_up = check_template({**template, "targets": []}, LAB, DenyList())
    assert made_up.example_facts == {"cisco_ios": example_facts("cisco_ios")}
    assert made_up.examples["cisco_ios"][1] == " router-id 10.255.0.1"


def test_devices_whose_facts_hold_a_line_break_are_refused_with_the_reason() -> None:
    lab = copy.deepcopy(LAB)
    lab["links"].append(
        {
            "a_device": "R2",
            "a_interface": "Gi0/2",
            "b_device": "R3",
            "b_interface": "GigabitEthernet0/0\u2028no router ospf 1",
        }
    )
    refused = refuse_unsafe_facts(lab)
    assert "error" not in refused["devices"]["R1"]
    for name, path in (("R2", "neighbors[1].device_interface"), ("R3", "neighbors[0].interface")):
        error = refused["devices"][name]["error"]
        assert error.startswith(f"its lab facts cannot be used in a configuration (facts.{path}")
        assert "line break or control character (U+2028)" in error
    # The check before rendering refuses them too, should a topology skip the gather step.
    previews, errors = preview_devices(
        proposal(LINKS_TEMPLATE, ["R2"]), {"R2": {}}, lab, DenyList()
    )
    assert previews == {} and errors[0].startswith("R2: facts.neighbors[1].device_interface:")
