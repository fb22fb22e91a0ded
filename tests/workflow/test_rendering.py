"""Rendering: lines as devices expect them, network filters, a sandbox that refuses escapes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from base.errors import TemplateError
from workflow.safety.deny import DenyList
from workflow.templates.rendering import render, template_variables

FIXTURES = Path(__file__).parent / "fixtures"
ESCAPES = json.loads((FIXTURES / "sandbox_escapes.json").read_text())["templates"]

OSPF = """router ospf {{ pid }}
{% for net in networks %}
 network {{ net|network }} {{ net|wildcard }} area {{ area }}
{% endfor %}
"""


@pytest.mark.parametrize(
    ("source", "params", "expected"),
    [
        (
            OSPF,
            {"pid": 1, "networks": ["10.0.12.1/24", "192.168.1.0/24"], "area": 0},
            [
                "router ospf 1",
                " network 10.0.12.0 0.0.0.255 area 0",
                " network 192.168.1.0 0.0.0.255 area 0",
            ],
        ),
        (
            "interface {{ n }}   \n\n   \n ip address {{ ip }} {{ m }}\t",
            {"n": "Gi0/0", "ip": "10.0.0.1", "m": "255.255.255.0"},
            ["interface Gi0/0", " ip address 10.0.0.1 255.255.255.0"],
        ),
        ("{% if ospf %}router ospf 1\n{% endif %}exit", {"ospf": True}, ["router ospf 1", "exit"]),
        (
            "{% for v in vlans %}vlan {{ v }}\n{% endfor %}",
            {"vlans": [10, 20]},
            ["vlan 10", "vlan 20"],
        ),
        ("a\r\nb\rc", {}, ["a", "b", "c"]),
        (
            "{{ x }}",
            {"x": "a\u2028b"},
            ["a", "b"],
        ),  # unicode separators split too: the deny-list sees both
    ],
)
def test_render_keeps_indentation_and_drops_blank_lines(
    source: str, params: dict[str, Any], expected: list[str]
) -> None:
    assert render(source, params) == expected


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("'10.0.0.1/24'|netmask", "255.255.255.0"),
        ("24|netmask", "255.255.255.0"),
        ("'/30'|netmask", "255.255.255.252"),
        ("'255.255.255.0'|prefixlen", "24"),
        ("'10.0.0.1/16'|prefixlen", "16"),
        ("'10.0.0.0/24'|wildcard", "0.0.0.255"),
        ("'255.255.240.0'|wildcard", "0.0.15.255"),
        ("'10.0.0.0/24'|hostmask", "0.0.0.255"),
        ("'10.0.0.1/24'|network", "10.0.0.0"),
        ("'10.0.0.1/24'|host", "10.0.0.1"),
        ("'10.0.0.1/24'|broadcast", "10.0.0.255"),
        ("'10.0.0.1/24'|ip_network", "10.0.0.0/24"),
        ("'10.0.0.1'|to_cidr('255.255.255.0')", "10.0.0.1/24"),
        ("'10.0.0.1'|to_cidr(28)", "10.0.0.1/28"),
        ("'10.0.0.0/24'|nth_host(1)", "10.0.0.1"),
        ("'2001:db8::1/64'|network", "2001:db8::"),
        ("'2001:db8::1/64'|ip_version", "6"),
        ("'GigabitEthernet0/1'|short_interface", "Gi0/1"),
        ("'Gi0/1'|long_interface", "GigabitEthernet0/1"),
    ],
)
def test_network_filters(expression: str, expected: str) -> None:
    assert render("{{ " + expression + " }}", {}) == [expected]


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("ok\n{{ '300.1.1.1/24'|netmask }}", "line 2"),
        ("{{ 33|netmask }}", "prefix length"),
        ("{{ '10.0.0.0/30'|nth_host(9) }}", "no address number 9"),
        ("a\nb\n{{ missing }}", "line 3: 'missing' is undefined"),
        ("a\n{% for x in %}", "line 2: syntax error"),
    ],
)
def test_errors_name_the_line_and_the_problem(source: str, message: str) -> None:
    with pytest.raises(TemplateError, match=message):
        render(source, {})


@pytest.mark.parametrize("payload", ESCAPES)
def test_sandbox_refuses_every_escape_and_bomb(payload: str) -> None:
    with pytest.raises(TemplateError):
        render(payload, {"x": "value"})


def test_corpus_is_large_enough() -> None:
    assert len(ESCAPES) >= 30


def test_template_variables_lists_params_but_not_globals_or_locals() -> None:
    source = (
        "{% for n in networks %}{{ n|network }} {{ area }}{% endfor %}"
        "{% set y = 1 %}{{ y }}{{ range(2)|list }}"
    )
    assert template_variables(source) == {"networks", "area"}


def test_params_are_data_never_template_code() -> None:
    assert render("description {{ d }}", {"d": "{{ 7 * 7 }}"}) == ["description {{ 7 * 7 }}"]


def test_repeated_render_uses_the_cache_and_stays_correct() -> None:
    source = "hostname {{ h }}"
    assert [render(source, {"h": f"R{i}"})[0] for i in range(3)] == [
        "hostname R0",
        "hostname R1",
        "hostname R2",
    ]


FACTS = {
    "name": "R1",
    "interfaces": [
        {"name": "GigabitEthernet0/0", "address": "10.0.12.1/24"},
        {"name": "GigabitEthernet0/1", "address": None},
    ],
}


def test_templates_loop_over_the_devices_facts() -> None:
    source = (
        "{% for i in facts.interfaces if i.address %}"
        "interface {{ i.name }}\n ip address {{ i.address|host }} {{ i.address|netmask }}\n"
        "{% endfor %}"
    )
    assert render(source, {}, facts=FACTS) == [
        "interface GigabitEthernet0/0",
        " ip address 10.0.12.1 255.255.255.0",
    ]


def test_facts_cannot_be_overridden_by_a_parameter_nor_changed_by_the_template() -> None:
    assert render("hostname {{ facts.name }}", {"facts": {"name": "X"}}, facts=FACTS) == [
        "hostname R1"
    ]
    for source in (
        "{{ facts.interfaces.append(1) }}",
        "{{ facts.update({'name': 'X'}) }}",
        "{{ facts.interfaces.pop() }}",
    ):
        with pytest.raises(TemplateError, match="refused by the template sandbox"):
            render(source, {}, facts=FACTS)


def test_facts_are_printed_as_data_never_evaluated() -> None:
    """What the renderer does with a fact: prints it verbatim. A line break therefore splits
    it into a command of its own (the deny-list sees that line), which is why the graph
    refuses devices whose facts hold one before anything is rendered."""
    tricky = {"name": "{{ 7 * 7 }}", "neighbors": [{"device": "R2\nreload"}]}
    source = (
        "hostname {{ facts.name }}\n"
        "{% for n in facts.neighbors %}description {{ n.device }}\n{% endfor %}"
    )
    lines = render(source, {}, facts=tricky)
    assert lines == ["hostname {{ 7 * 7 }}", "description R2", "reload"]
    assert [hit.line for hit in DenyList().check(lines, "cisco_ios")] == ["reload"]
