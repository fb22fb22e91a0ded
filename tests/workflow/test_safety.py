"""The deny-list: every forbidden line is refused with a reason; ordinary configuration passes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from base.errors import ConfigError, TemplateError
from workflow.rendering import render
from workflow.safety import DenyList, Violation

CORPUS = json.loads((Path(__file__).parent / "fixtures" / "forbidden_commands.json").read_text())


@pytest.mark.parametrize(
    "case", CORPUS["templates"], ids=lambda c: f"{c['family']}:{c['template'][:30]!r}"
)
def test_every_forbidden_template_is_refused(case: dict[str, str]) -> None:
    try:
        lines = render(case["template"], {})
    except TemplateError:
        return
    violations = DenyList().check(lines, case["family"])
    assert violations, f"not refused: {lines}"
    assert all(v.reason for v in violations)


def test_corpus_is_large_enough() -> None:
    assert len(CORPUS["templates"]) + len(CORPUS["params"]) >= 30
    assert len(CORPUS["templates"]) >= 30


@pytest.mark.parametrize(
    ("family", "line"),
    [
        ("cisco_ios", "description reload the lab later"),
        ("cisco_ios", "interface GigabitEthernet0/0"),
        ("cisco_ios", " shutdown"),
        ("cisco_ios", "no shutdown"),
        ("cisco_ios", "router ospf 1"),
        ("cisco_ios", "redistribute connected"),
        ("cisco_ios", "remark deny reload"),
        ("cisco_ios", "no debug all"),
        ("cisco_ios", "undebug all"),
        ("cisco_ios", "write memory"),
        ("cisco_ios", "do copy running-config startup-config"),
        ("cisco_ios", 'action 1.0 syslog msg "lab change"'),
        ("cisco_ios", "ip domain-name lab.example"),
        ("cisco_ios", "endpoint x"),
        ("cisco_ios", "logging host 10.0.0.1"),
        ("arista_eos", "dns domain lab.example"),
        ("juniper_junos", "delete interfaces ge-0/0/0 unit 0"),
        ("juniper_junos", "set interfaces ge-0/0/0 disable"),
        ("juniper_junos", "set system host-name R3"),
        ("huawei_vrp", "undo shutdown"),
        ("huawei_vrp", "sysname R5"),
    ],
)
def test_ordinary_configuration_passes(family: str, line: str) -> None:
    assert DenyList().check([line], family) == []


def test_violation_says_which_line_and_why() -> None:
    lines = ["hostname R1", "do wr er", "ntp server 10.0.0.1"]
    [violation] = DenyList().check(lines, "cisco_ios_telnet")
    assert violation == Violation(
        "do wr er", "wr[ite] er[ase]", "erases the startup configuration", 2
    )
    assert "line 2" in str(violation) and "erases the startup configuration" in str(violation)


def test_management_shutdown_only_inside_a_management_section() -> None:
    lines = [
        "interface Management1",
        " description mgmt",
        "router ospf 1",
        " shutdown",
        "interface mgmt0",
        "shutdown",
    ]
    violations = DenyList().check(lines, "arista_eos")
    assert [v.number for v in violations] == [6]
    assert "management access" in violations[0].reason


def test_extra_patterns_from_settings() -> None:
    deny = DenyList(extra=[r"^no router ospf", r"clear ip bgp"])
    assert [
        v.rule
        for v in deny.check(
            ["NO  router ospf 1", "do clear ip bgp *", "router ospf 1"], "cisco_ios"
        )
    ] == [
        "extra:^no router ospf",
        "extra:clear ip bgp",
    ]


def test_invalid_extra_pattern_is_a_config_error_naming_the_setting() -> None:
    with pytest.raises(ConfigError, match="LABBOT_DENY_EXTRA"):
        DenyList(extra=["(unclosed"])


def test_junos_delete_is_only_refused_bare() -> None:
    deny = DenyList()
    assert deny.check(["delete"], "juniper_junos")
    assert not deny.check(["delete protocols ospf"], "juniper_junos")
    assert deny.check(["delete protocols ospf"], "cisco_ios")  # on IOS `delete` removes files
