"""The deny-list: every forbidden line is refused with a reason; ordinary configuration passes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from base.errors import ConfigError, TemplateError
from workflow.safety.deny import DenyList, Violation
from workflow.templates.rendering import render

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
        ("cisco_ios", "logging buffered 16384"),
        ("cisco_ios", "snmp-server community labro RO"),
        ("cisco_ios", "do copy run start"),
        ("cisco_ios", "ip route 10.0.0.0 255.0.0.0 Null0"),
        ("cisco_ios", "no router-id"),
        ("cisco_ios", "description café au lait"),
        ("frr", "log syslog informational"),
        ("frr", "router bgp 65001"),
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
        "do wr er", "write-erase", "erases the startup configuration", 2, "exec"
    )
    assert str(violation) == (
        "line 2 `do wr er` is refused (destructive exec, rule write-erase: "
        "erases the startup configuration)"
    )


def test_a_description_whose_bytes_read_in_7_bits_break_the_line_is_refused_saying_so() -> None:
    """IOS reads 7 bits per character by default: `Ê` (C3 8A) is `C` and a line feed, so the
    rest of the description would run as a command of its own; `é` (C3 A9) reads as `C)`."""
    line = " description to R2\u00casnmp-server community x RW"
    [violation] = DenyList().check(["interface Gi0/1", line], "cisco_ios")
    assert (violation.number, violation.rule, violation.family) == (2, "seven-bit", "unreadable")
    assert not violation.allowed_by(["unreadable", "non-ascii"])  # a rollback's id alone
    assert violation.reason == (
        "holds 'Ê' (U+00CA), a device reading 7 bits sees a control character or `?` in its bytes"
    )
    assert DenyList().check(["interface Gi0/1", " description café au lait"], "cisco_ios") == []


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
    assert [(v.number, v.rule) for v in violations] == [
        (4, "routing-shutdown"),
        (6, "mgmt-interface"),
    ]
    assert "management access" in violations[1].reason


def test_extra_patterns_from_settings() -> None:
    deny = DenyList(extra=[r"^ip route 0\.0\.0\.0", r"ntp server 10\.6\.6\.6"])
    lines = ["IP  route 0.0.0.0 0.0.0.0 Null0", "ntp server 10.6.6.6", "ntp server 10.0.0.1"]
    assert [v.rule for v in deny.check(lines, "cisco_ios")] == [
        r"extra:^ip route 0\.0\.0\.0",
        r"extra:ntp server 10\.6\.6\.6",
    ]
    # a site rule is the lab's last word: no template allows it
    assert deny.check(lines, "cisco_ios", ["exec", r"extra:ntp server 10\.6\.6\.6"])


def test_invalid_extra_pattern_is_a_config_error_naming_the_setting() -> None:
    with pytest.raises(ConfigError, match="LABBOT_DENY_EXTRA"):
        DenyList(extra=["(unclosed"])


def test_junos_delete_is_refused_bare_or_for_a_whole_protocol() -> None:
    deny = DenyList()
    assert [v.rule for v in deny.check(["delete"], "juniper_junos")] == ["write-erase"]
    assert [v.rule for v in deny.check(["delete protocols ospf"], "juniper_junos")] == [
        "routing-process"
    ]
    assert not deny.check(["delete protocols ospf area 0 interface ge-0/0/1.0"], "juniper_junos")
    # on IOS `delete` removes files
    assert [v.rule for v in deny.check(["delete protocols ospf"], "cisco_ios")] == ["delete"]


def test_a_lone_surrogate_is_refused_as_a_control_character_on_every_platform() -> None:
    """JSON's "\\ud800" in a chat payload: no device can be sent it (an encoder replacing it
    writes `?`, help on IOS), not even inside a description."""
    for platform, lines in (
        ("cisco_ios", ["interface Gi0/1", " description to R2\ud800"]),
        ("arista_eos", ["interface Ethernet1", " description to R2\udcff"]),
    ):
        [violation] = DenyList().check(lines, platform)
        assert (violation.number, violation.rule) == (2, "control-character"), platform
