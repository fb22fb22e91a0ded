"""The post-check declaration: what is accepted, what is refused and why, combinations."""

from __future__ import annotations

from typing import Any

import pytest

from workflow.library.catalog import load_catalog, template_sha256
from workflow.library.compose import combine
from workflow.model import TemplateProposal
from workflow.postcheck_spec import (
    PostCheck,
    PostChecks,
    combine_post_checks,
    parse_post_checks,
    post_check_errors,
)
from workflow.templates.check import validate_template


def test_short_and_long_forms_normalize_alike() -> None:
    short, errors = parse_post_checks(["ospf_neighbors", "bgp_sessions"])
    assert errors == []
    long, _ = parse_post_checks(
        {"timeout": 60, "checks": [{"kind": "ospf_neighbors"}, {"kind": "bgp_sessions"}]}
    )
    assert (
        short
        == long
        == PostChecks(
            checks=[
                PostCheck(kind="ospf_neighbors"),
                PostCheck(kind="bgp_sessions", param="neighbors"),
            ],
            timeout=60.0,
        )
    )


def test_routes_with_protocol() -> None:
    checks, errors = parse_post_checks(
        {"timeout": 5, "checks": [{"kind": "routes", "param": "prefix", "protocol": "static"}]}
    )
    assert errors == []
    assert checks == {
        "checks": [{"kind": "routes", "param": "prefix", "protocol": "static"}],
        "timeout": 5.0,
    }


@pytest.mark.parametrize(
    ("declared", "error"),
    [
        ("ospf", "expected a mapping"),
        ({"checks": []}, "`checks` must be a non-empty list"),
        ({"checks": ["ospf_neighbours"]}, "unknown kind 'ospf_neighbours'"),
        ({"checks": ["routes"]}, "`routes` needs `param`"),
        ({"checks": [{"kind": "routes", "param": "a b"}]}, "is not a parameter name"),
        ({"checks": [{"kind": "routes", "param": "p", "protocol": "rip"}]}, "protocol 'rip'"),
        ({"checks": [{"kind": "bgp_sessions", "protocol": "bgp"}]}, "applies to routes"),
        ({"checks": [{"kind": "ospf_neighbors", "wait": 3}]}, "unknown option 'wait'"),
        ({"checks": ["ospf_neighbors"], "timeout": 0}, "timeout 0 is not 1 to 600 s"),
        ({"checks": ["ospf_neighbors"], "timeout": 3600}, "timeout 3600"),
        ({"checks": ["ospf_neighbors"], "timeout": "soon"}, "not a number of seconds"),
        ({"checks": ["ospf_neighbors"], "retries": 3}, "unknown key 'retries'"),
        ({"checks": ["ospf_neighbors"] * 21}, "at most 20"),
    ],
)
def test_refused_declarations_say_why(declared: Any, error: str) -> None:
    checks, errors = parse_post_checks(declared)
    assert checks is None
    assert any(error in message for message in errors), errors


def test_a_check_reading_an_unknown_parameter_is_refused() -> None:
    errors = post_check_errors({"checks": ["bgp_sessions"]}, {"asn": {"type": "asn"}})
    assert errors == [
        "post_checks: bgp_sessions reads parameter 'neighbors', which is not in params_schema"
    ]


def test_template_validation_reports_post_check_errors() -> None:
    proposal = TemplateProposal(
        name="custom",
        description="static",
        templates={"cisco_ios": "ip route {{ prefix }} {{ next_hop }}"},
        params_schema={"prefix": {"type": "str"}, "next_hop": {"type": "ipv4"}},
        example_params={"prefix": "10.1.0.0 255.255.0.0", "next_hop": "10.0.0.2"},
        targets=[],
        source="llm",
        post_checks={"checks": [{"kind": "routes", "param": "prefixes"}]},  # type: ignore[typeddict-item]
    )
    errors = validate_template(proposal)
    assert errors == [
        "post_checks: routes reads parameter 'prefixes', which is not in params_schema"
    ]


def test_combined_templates_check_everything_once_with_the_longest_wait() -> None:
    ospf, _ = parse_post_checks({"timeout": 30, "checks": ["ospf_neighbors", "loopback_routes"]})
    bgp, _ = parse_post_checks({"timeout": 90, "checks": ["bgp_sessions", "loopback_routes"]})
    combined = combine_post_checks([ospf, None, bgp])
    assert combined is not None
    assert [c["kind"] for c in combined["checks"]] == [
        "ospf_neighbors",
        "loopback_routes",
        "bgp_sessions",
    ]
    assert combined["timeout"] == 90
    assert combine_post_checks([None, None]) is None


def test_post_checks_are_part_of_a_templates_identity() -> None:
    args: tuple[Any, ...] = ("t", "d", {"cisco_ios": "x"}, {}, {})
    checks, _ = parse_post_checks(["ospf_neighbors"])
    assert template_sha256(*args) == template_sha256(*args, None)  # old hashes unchanged
    assert template_sha256(*args, checks) != template_sha256(*args)


def test_library_templates_carry_their_checks_into_proposals_and_combinations() -> None:
    catalog = load_catalog()
    declaring = [n for n in catalog.names() if catalog.get(n).post_checks]
    for name in declaring:
        proposal = catalog.as_proposal(name, ["R1"])
        assert proposal["post_checks"] == catalog.get(name).post_checks
    plain = [n for n in catalog.names() if not catalog.get(n).post_checks]
    combined = combine("x", [catalog.get(n) for n in plain[:2]])
    assert combined.post_checks is None
