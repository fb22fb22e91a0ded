"""Parameter validation against the schema: values normalized, injections and bad values refused
with the reason, defaults checked like values."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from workflow.model import ParamSpec
from workflow.templates.validation import validate_params

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


def test_defaults_are_normalized_like_values() -> None:
    schema: dict[str, ParamSpec] = {
        "shut": {"type": "bool", "default": "no"},
        "mask": {"type": "mask", "default": 24},
    }
    assert validate_params(schema, {}) == ({"shut": False, "mask": "255.255.255.0"}, [])
