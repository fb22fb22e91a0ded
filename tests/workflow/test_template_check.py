"""Template validation: syntax, variables against the schema, the example rendering and the
deny-list — the checks that run before any human sees a proposed template."""

from __future__ import annotations

from typing import Any

import pytest

from workflow.library.catalog import load_catalog
from workflow.model import TemplateProposal
from workflow.safety.deny import DenyList
from workflow.templates.check import check_template, validate_template
from workflow.templates.facts import example_facts, example_lab


def _proposal(templates: dict[str, str], **overrides: Any) -> TemplateProposal:
    proposal = TemplateProposal(
        name="custom",
        description="test",
        templates=templates,
        params_schema={"pid": {"type": "int"}, "area": {"type": "str", "default": "0"}},
        example_params={"pid": 1},
        targets=[],
        source="llm",
    )
    proposal.update(overrides)  # type: ignore[typeddict-item]
    return proposal


@pytest.mark.parametrize(
    ("proposal", "expected"),
    [
        (
            _proposal(
                {"cisco_ios": "router ospf {{ pid }}\n network 0.0.0.0 0.0.0.0 area {{ area }}"}
            ),
            [],
        ),
        (_proposal({}), ["the proposal has no template"]),
        (
            _proposal({"cisco_ios": "router ospf {{ pid }\n"}),
            ["cisco_ios template: line 1: syntax error"],
        ),
        (
            _proposal({"cisco_ios": "router ospf {{ pid }} {{ vrf }}"}),
            ["cisco_ios template uses 'vrf', which is not in params_schema"],
        ),
        (
            _proposal({"cisco_ios": "router ospf 1"}),
            ["required parameter 'pid' is not used by any template"],
        ),
        (
            _proposal({"cisco_ios": "router ospf {{ pid }}"}, example_params={}),
            ["example_params: param 'pid' is required"],
        ),
        (
            _proposal({"cisco_ios": "{% if pid > 5 %}x{% endif %}"}),
            ["cisco_ios template renders no lines"],
        ),
        (
            _proposal({"cisco_ios": "router ospf {{ pid }}\ndo reload"}),
            ["cisco_ios template example: line 2 `do reload` is refused"],
        ),
        (
            _proposal({"cisco_ios": "{{ pid.__class__ }}"}),
            ["cisco_ios template fails on example_params: line 1: refused by the template sandbox"],
        ),
        (
            _proposal(
                {
                    "cisco_ios": "router ospf {{ pid }}",
                    "juniper_junos": "set x {{ pid }}\nrequest system reboot",
                }
            ),
            ["juniper_junos template example: line 2"],
        ),
        (
            _proposal(
                {"cisco_ios": "{{ loop }}"},
                params_schema={"loop": {"type": "str"}},
                example_params={"loop": "x"},
            ),
            ["params_schema: 'loop' is not usable as a variable name"],
        ),
        (
            _proposal(
                {
                    "cisco_ios": "router ospf {{ pid }}\n router-id {{ facts.router_id }}\n"
                    "{% for i in facts.interfaces if i.address %}"
                    " network {{ i.address|network }} {{ i.address|wildcard }} area {{ area }}\n"
                    "{% endfor %}"
                }
            ),
            [],  # facts is provided, not a parameter; the example renders with example facts
        ),
        (
            _proposal(
                {"cisco_ios": "hostname {{ facts }}"},
                params_schema={"facts": {"type": "str"}},
                example_params={"facts": "R1"},
            ),
            ["params_schema: 'facts' is reserved for the device's facts"],
        ),
        (
            _proposal({"cisco_ios": "router ospf {{ pid }}\n vlan {{ facts.vlan }}"}),
            ["cisco_ios template fails on example_params: line 2: 'dict object' has no attribute"],
        ),
        (
            _proposal(
                {"cisco_ios": "router ospf 1 area {{ area }}"},
                params_schema={
                    "pid": {"type": "colour", "required": False},
                    "area": {"type": "str"},
                },
                example_params={"area": "0"},
            ),
            ["params_schema: 'pid' has the unknown type 'colour'"],
        ),
        (
            _proposal(
                {"cisco_ios": "router ospf {{ pid }} {{ area }}"},
                params_schema={
                    "pid": {"type": "int"},
                    "area": {"type": "str", "default": "0\nreload"},
                },
            ),
            ["example_params: param 'area (default)': '0\\nreload' contains a line break"],
        ),
    ],
)
def test_validate_template(proposal: TemplateProposal, expected: list[str]) -> None:
    errors = validate_template(proposal)
    assert len(errors) == len(expected), errors
    for error, start in zip(errors, expected, strict=True):
        assert error.startswith(start), error


def test_the_example_renders_with_the_facts_given_and_the_deny_list_sees_them() -> None:
    """A lab device's facts as example: what they print is checked like any other line."""
    proposal = _proposal({"cisco_ios": "router ospf {{ pid }}\n{{ facts.name }}"})
    facts = {**example_facts("cisco_ios"), "name": "reload"}
    errors = validate_template(proposal, example_facts={"cisco_ios": facts})  # type: ignore[dict-item]
    assert [e.split(" is refused")[0] for e in errors] == [
        "cisco_ios template example: line 2 `reload`"
    ]
    assert validate_template(proposal) == []  # the made-up example device R1 is harmless


def test_each_familys_example_names_its_own_interfaces() -> None:
    """One example_params serves every family: the library OSPF's Junos `ge-0/0/0.0`, `lo0.0`
    render as FRR's `eth0` (its loopback `lo` is skipped by the template), Junos' stay."""
    ospf = load_catalog().as_proposal("ospf", ["R1"])
    assert ospf["example_params"]["interfaces"] == ["ge-0/0/0.0", "lo0.0"]
    lab = example_lab({"frr": "", "juniper_junos": ""})
    examples = check_template(ospf, lab, DenyList()).examples
    assert [line for line in examples["frr"] if line.startswith("interface")] == ["interface eth0"]
    assert not any("ge-0/0" in line for line in examples["frr"])
    assert "set protocols ospf area 0 interface ge-0/0/0.0" in examples["juniper_junos"]
    assert "set protocols ospf area 0 interface lo0.0" in examples["juniper_junos"]
