"""The deny-list as a policy per platform, table-driven: a hostile LLM's lines for every family
on every platform are refused, each for its family (named to the user); issue 25's examples;
lines the policy cannot read; ordinary lines around the same words pass; and what a template's
`allow:` may and may not let through."""

from __future__ import annotations

from collections import Counter, defaultdict

import pytest

from tests.security.deny_cases import (
    FAMILIES,
    HARMLESS,
    HOSTILE,
    ISSUE_EXAMPLES,
    PLATFORMS,
    UNREADABLE,
)
from tests.security.tally import attempt
from workflow.denylist import eos, frr, ios, junos, vrp
from workflow.denylist.platform_rules import allowance_errors
from workflow.denylist.rules import ALLOWABLE_FAMILIES, FAMILY_TITLES
from workflow.safety.allowances import allowance_problems, allowed_by, restoring_allowances
from workflow.safety.deny import DenyList


def _ids(cases: list[tuple[str, str, list[str]]]) -> list[str]:
    return [f"{family}:{platform}:{lines[-1].strip()[:28]}" for family, platform, lines in cases]


@pytest.mark.parametrize(("family", "platform", "lines"), HOSTILE, ids=_ids(HOSTILE))
def test_every_family_on_every_platform_is_refused_and_named(
    family: str, platform: str, lines: list[str]
) -> None:
    refused = DenyList().check(lines, platform)
    named = [v for v in refused if v.family == family]
    attempt(f"deny policy: {family}", bool(named))
    assert named, f"{platform}: {lines} not refused as {family}: {[str(v) for v in refused]}"
    assert FAMILY_TITLES[named[0].family] in str(named[0])  # the user reads the family


def test_the_suite_covers_every_family_on_every_platform() -> None:
    covered = Counter((family, platform) for family, platform, _ in HOSTILE)
    missing = [(f, p) for f in FAMILIES for p in PLATFORMS if covered[(f, p)] < 2]
    assert not missing


@pytest.mark.parametrize(("family", "platform", "lines"), ISSUE_EXAMPLES, ids=_ids(ISSUE_EXAMPLES))
def test_the_examples_issue_25_found_missing_are_refused(
    family: str, platform: str, lines: list[str]
) -> None:
    refused = DenyList().check(lines, platform)
    attempt("deny policy: issue 25 examples", any(v.family == family for v in refused))
    assert family in {v.family for v in refused}, [str(v) for v in refused]


@pytest.mark.parametrize(
    ("platform", "lines"), UNREADABLE, ids=[repr(c[1][-1]) for c in UNREADABLE]
)
def test_a_line_it_cannot_read_is_refused_and_no_allowance_lets_it_through(
    platform: str, lines: list[str]
) -> None:
    every = [*ALLOWABLE_FAMILIES, "unreadable", "non-ascii", "control-character"]
    refused = DenyList().check(lines, platform, allow=every)
    attempt("deny policy: unreadable input", bool(refused))
    # only as unreadable (a zero-width space is both a format character and no ASCII)
    assert refused and {v.family for v in refused} == {"unreadable"}, [str(v) for v in refused]


@pytest.mark.parametrize(("platform", "lines"), HARMLESS, ids=[c[1][-1][:30] for c in HARMLESS])
def test_ordinary_lines_around_the_same_words_pass(platform: str, lines: list[str]) -> None:
    assert DenyList().check(lines, platform) == []


def test_a_rule_id_means_one_family_on_every_platform() -> None:
    families: dict[str, set[str]] = defaultdict(set)
    for rule in ios.RULES + eos.RULES + frr.RULES + junos.RULES + vrp.RULES:
        families[rule.id].add(rule.family)
        assert rule.reason, rule
    assert {rid: fams for rid, fams in families.items() if len(fams) > 1} == {}


ALLOW_CASES = [  # (allow, platform, lines, rule ids still refused)
    (["logging-host"], "cisco_ios", ["logging host 10.0.0.50", "logging trap 6"], []),
    (["logging-host"], "juniper_junos", ["set system syslog host 10.0.0.50 any info"], []),
    (["logging-host"], "huawei_vrp", ["info-center loghost 10.0.0.50"], []),
    (
        ["logging-host"],
        "cisco_ios",
        ["logging host 10.0.0.50", "snmp-server host 10.6.6.6 x"],
        ["snmp-host"],
    ),
    (["exfiltration"], "cisco_ios", ["logging host 10.0.0.50", "snmp-server host 10.6.6.6 x"], []),
    (
        ["exfiltration"],
        "cisco_ios",
        ["logging host 10.0.0.50", "no router ospf 1"],
        ["routing-process"],
    ),
    (["clear"], "frr", ["do clear ip ospf process", "no ip forwarding"], ["routing-off"]),
    (
        ["exec"],
        "cisco_ios",
        ["do reload", "conf t", "end", "do show run ?"],
        ["configure", "end", "help"],
    ),
]


@pytest.mark.parametrize(("allow", "platform", "lines", "still"), ALLOW_CASES)
def test_an_allowance_lets_through_exactly_what_it_names(
    allow: list[str], platform: str, lines: list[str], still: list[str]
) -> None:
    verdict = DenyList().judge(lines, platform, allow)
    assert [v.rule for v in verdict.refused] == still
    assert verdict.allowed and all(v.allowed_by(allow) for v in verdict.allowed)


def test_an_allowance_naming_no_rule_is_refused() -> None:
    assert allowance_errors(["logging-host", "exfiltration"]) == []
    assert len(allowance_errors(["logging-hots", "everything", "unreadable", "end"])) == 4
    assert allowance_errors("logging-host") and allowance_errors([3])


def test_only_the_labs_own_templates_may_allow() -> None:
    """Built-in and saved templates, and rollbacks (built by labbot from backups); never a
    template the LLM wrote, nor one whose source is unknown."""
    for source in ("library", "saved", "rollback"):
        template = {"source": source, "allow": ["logging-host"]}
        assert allowed_by(template) == ["logging-host"] and allowance_problems(template) == []
    for source in ("llm", "made-up"):
        template = {"source": source, "allow": ["logging-host"]}
        attempt("deny policy: a template allowing itself", not allowed_by(template))
        assert allowed_by(template) == []
        [problem] = allowance_problems(template)
        assert "cannot allow" in problem


def test_only_a_rollback_may_restore_a_description_a_7_bit_device_would_read_otherwise() -> None:
    """`Ü` is C3 9C: a device reading 7 bits sees a control character in its bytes. A rollback
    restores the line its device printed so (a device printing the bytes whole reads 8 bits);
    no template may write one, and no allowance lets anything else through with it."""
    printed = ["interface Gi0/1", " description Überlink zu R2"]
    allow = restoring_allowances(DenyList(), {"R1": printed}, {"R1": "cisco_ios"})
    assert allow == ["seven-bit"] and DenyList().check(printed, "cisco_ios", allow) == []
    rollback, saved = {"source": "rollback", "allow": allow}, {"source": "saved", "allow": allow}
    assert allowance_problems(rollback) == [] and allowance_problems(saved)
    every_family = ["unreadable", *ALLOWABLE_FAMILIES]
    attempt(
        "deny policy: a template writing a 7-bit control",
        bool(DenyList().check(printed, "cisco_ios", every_family)),
    )
    assert DenyList().check(printed, "cisco_ios", every_family)
    for lines in (
        ["snmp-server community Über RW"],  # in a command word: read otherwise on any device
        ["interface Gi0/1", " description Ü\x15snmp-server community x RW"],  # Ctrl-U
    ):
        allow = restoring_allowances(DenyList(), {"R1": lines}, {"R1": "cisco_ios"})
        assert DenyList().check(lines, "cisco_ios", allow), lines
