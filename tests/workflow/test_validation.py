"""Parameter and template validation: the checks that run before any human sees a proposal."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from workflow.model import ParamSpec, TemplateProposal
from workflow.template_check import validate_template
from workflow.template_facts import example_facts
from workflow.validation import validate_params

CORPUS = json.loads((Path(__file__).parent / "fixtures" / "forbidden_commands.json").read_text())


@pytest.mark.parametrize(
    ("spec", "value", "expected"),
    [
        ({"type": "int"}, "10", 10),
        ({"type": "bool"}, "yes", True),
        ({"type": "bool"}, "off", False),
        ({"type": "str"}, 0, "0"),
        ({"type": "ip"}, "2001:DB8::1", "2001:db8::1"),
        ({"type": "ipv4"}, "10.0.0.1", "10.0.0.1"),
        ({"type": "ip_interface"}, "10.0.0.1/255.255.255.0", "10.0.0.1/24"),
        ({"type": "ipv4_network"}, "10.0.0.0/24", "10.0.0.0/24"),
        ({"type": "mask"}, "24", "255.255.255.0"),
        ({"type": "mask"}, "255.255.255.252", "255.255.255.252"),
        ({"type": "vlan"}, 4094, 4094),
        ({"type": "asn"}, "4294967295", 4294967295),
        ({"type": "asn"}, "1.10", 65546),
        ({"type": "interface"}, "GigabitEthernet0/0.10", "GigabitEthernet0/0.10"),
        ({"type": "interface"}, "ge-0/0/0", "ge-0/0/0"),
        ({"type": "list", "items": {"type": "vlan"}}, ["10", 20], [10, 20]),
        (
            {"type": "list", "fields": {"address": {"type": "ip"}, "remote_as": {"type": "asn"}}},
            [{"address": "10.0.0.2", "remote_as": "65002"}],
            [{"address": "10.0.0.2", "remote_as": 65002}],
        ),
    ],
)
def test_valid_values_are_normalized(spec: ParamSpec, value: Any, expected: Any) -> None:
    params, errors = validate_params({"p": spec}, {"p": value})
    assert errors == []
    assert params == {"p": expected}


@pytest.mark.parametrize(
    ("spec", "value", "message"),
    [
        ({"type": "int", "min": 1, "max": 10}, 11, "above the maximum 10"),
        ({"type": "int"}, True, "whole number"),
        ({"type": "bool"}, "maybe", "true or false"),
        ({"type": "ipv4"}, "2001:db8::1", "not an IPv4 address"),
        ({"type": "ipv6"}, "10.0.0.1", "not an IPv6 address"),
        ({"type": "ip"}, "10.0.0.256", "not an IP address"),
        ({"type": "ip_interface"}, "10.0.0.1", "needs a prefix length"),
        ({"type": "ipv4_network"}, "10.0.0.1/24", "did you mean 10.0.0.0/24"),
        ({"type": "mask"}, "255.0.255.0", "not a netmask"),
        ({"type": "vlan"}, 0, "not a VLAN id"),
        ({"type": "vlan"}, 4095, "not a VLAN id"),
        ({"type": "asn"}, 0, "not an AS number"),
        ({"type": "asn"}, 4294967296, "not an AS number"),
        ({"type": "interface"}, "Gi 0/0", "not an interface name"),
        ({"type": "interface"}, "Loopback", "not an interface name"),
        ({"type": "str", "max": 3}, "abcd", "above the maximum 3 characters"),
        ({"type": "list", "items": {"type": "int"}, "min": 1}, [], "below the minimum 1 items"),
        ({"type": "list", "items": {"type": "int"}}, "1,2", "expected a list"),
        ({"type": "colour"}, "red", "schema type 'colour' is unknown"),
    ],
)
def test_invalid_values_are_refused_with_the_reason(
    spec: ParamSpec, value: Any, message: str
) -> None:
    _, errors = validate_params({"p": spec}, {"p": value})
    assert len(errors) == 1
    assert errors[0].startswith("param 'p'") and message in errors[0]


@pytest.mark.parametrize("case", CORPUS["params"], ids=lambda c: f"{c['type']}:{c['value']!r}"[:40])
def test_every_injection_in_params_is_refused(case: dict[str, Any]) -> None:
    spec: ParamSpec = {"type": case["type"]}
    if case["type"] == "list_str":
        spec = {"type": "list", "items": {"type": "str"}}
    _, errors = validate_params({"p": spec}, {"p": case["value"]})
    assert errors


def test_defaults_required_and_unknown_params() -> None:
    schema: dict[str, ParamSpec] = {
        "area": {"type": "str", "default": "0"},
        "pid": {"type": "int"},
        "rid": {"type": "ipv4", "required": False},
    }
    params, errors = validate_params(schema, {"color": "red"})
    assert params == {"area": "0"}
    assert errors == [
        "param 'color' is not in the schema (known: area, pid, rid)",
        "param 'pid' is required (int)",
    ]


def test_nested_errors_name_the_path() -> None:
    schema: dict[str, ParamSpec] = {
        "peers": {
            "type": "list",
            "fields": {"address": {"type": "ip"}, "remote_as": {"type": "asn"}},
        }
    }
    _, errors = validate_params(
        schema, {"peers": [{"address": "10.0.0.1", "remote_as": 1}, {"address": "x"}]}
    )
    assert errors == [
        "param 'peers[1].address': 'x' is not an IP address",
        "param 'peers[1].remote_as' is required (asn)",
    ]


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


def test_defaults_are_normalized_like_values() -> None:
    schema: dict[str, ParamSpec] = {
        "shut": {"type": "bool", "default": "no"},
        "mask": {"type": "mask", "default": 24},
    }
    assert validate_params(schema, {}) == ({"shut": False, "mask": "255.255.255.0"}, [])
