"""Sections by effect, line by line: every whitespace and hierarchy trick a hostile template can
write is refused with its reason, a declared section that admits anything is refused, and a line
IOS (or EOS) runs somewhere else than its indentation says is shown where it lands on the twin
(a simulated copy: labsim), outside the sections."""

from __future__ import annotations

import pytest

from labsim.ios import initial_config
from labsim.topology import demo_topology
from labsim.trial import twin_run
from tests.security.tally import attempt
from workflow.devices.diffing import landed_paths
from workflow.phases.landing import landed_text, outside_places
from workflow.safety.sections import misplaced_lines, section_errors

OSPF = ["router ospf * / network *"]
HEADER = "router ospf 1"
NETWORK = " network 10.0.12.0 0.0.0.255 area 0"
SNMP = "snmp-server community X RW"

# every character that is not an ASCII space but can stand where one does
NOT_A_SPACE = [
    "\t", "\u00a0", "\u3000", "\u2003", "\u2009", "\u202f", "\u205f", "\u1680", "\u2007",
    "\x0b", "\x0c", "\x85", "\u2028", "\u2029", "\u200b", "\u200d", "\u2060", "\ufeff",
    "\u180e", "\u00ad",
]  # fmt: skip


@pytest.mark.parametrize("char", NOT_A_SPACE, ids=[f"U+{ord(c):04X}" for c in NOT_A_SPACE])
@pytest.mark.parametrize("lead", ["", " "], ids=["alone", "after-a-space"])
def test_indentation_is_ascii_spaces_only(char: str, lead: str) -> None:
    lines = [HEADER, f"{lead}{char}{SNMP}"]
    [refused] = misplaced_lines(lines, OSPF)
    attempt("sections: indentation other than ASCII spaces", refused.why == "indent")
    assert (refused.number, refused.why) == (2, "indent")
    assert "ASCII spaces" in str(refused)


@pytest.mark.parametrize("char", NOT_A_SPACE, ids=[f"U+{ord(c):04X}" for c in NOT_A_SPACE])
def test_no_other_whitespace_or_invisible_character_inside_a_line(char: str) -> None:
    [refused] = misplaced_lines([HEADER, f" network 10.0.12.0{char}0.0.0.255 area 0"], OSPF)
    attempt("sections: a line holding other whitespace", refused.why == "whitespace")
    assert refused.why == "whitespace"


MODE_CHANGES = [
    ("mode", [HEADER, NETWORK, "exit", SNMP]),
    ("mode", [HEADER, " exit", f" {SNMP}"]),
    ("mode", [HEADER, " ex", f" {SNMP}"]),
    ("mode", [HEADER, " EXIT", f" {SNMP}"]),
    ("mode", [HEADER, " exi"]),
    ("mode", [HEADER, "end"]),
    ("mode", [HEADER, " en"]),
    ("mode", [HEADER, " !", f" {SNMP}"]),
    ("mode", [HEADER, "! a comment"]),
    ("mode", [HEADER, " # a comment"]),
    ("mode", ["router bgp 65000", " address-family ipv4", "  exit-address-family"]),
    ("mode", ["interface Gi0/1", " quit"]),
    ("mode", ["interface Gi0/1", " return"]),
    ("mode", ["edit protocols ospf"]),
    ("mode", ["top"]),
    ("mode", ["up"]),
    ("do", [HEADER, " do clear ip bgp *"]),
    ("do", [HEADER, " do telnet 10.6.6.6"]),
    ("do", [HEADER, " do ping 10.0.0.1 repeat 2147483647"]),
    ("do", [HEADER, " DO show running-config"]),
    ("do", ["do  reload"]),
    ("do", ["run request system reboot"]),
    ("banner", ["banner motd ^C"]),
    ("banner", ["banner motd #", SNMP, "#"]),
    ("banner", ["banner motd ^Authorized only"]),
    ("banner", ["banner login ^a^b^"]),
    ("banner", ["banner exec ^x^ snmp-server community X RW"]),
    ("banner", ["banner motd ^Chello^C"]),
    ("banner", [HEADER, " banner motd ^x^"]),
    ("banner", ["banner motd file /etc/shadow"]),
    ("banner", ["ban motd ^x"]),
    ("banner", ["banner motd"]),
    ("banner", ['header shell information "x']),
    ("continuation", [HEADER, " network 10.0.12.0 0.0.0.255 \\"]),
    ("continuation", [HEADER, NETWORK + " \\"]),
]


@pytest.mark.parametrize(("why", "lines"), MODE_CHANGES, ids=[ls[-1] for _, ls in MODE_CHANGES])
def test_mode_changes_banners_and_continuations_are_refused(why: str, lines: list[str]) -> None:
    sections = [*OSPF, "banner motd *", "interface * / *description", "router bgp * / bgp *"]
    refused = [m for m in misplaced_lines(lines, sections) if m.why != "outside"]
    attempt(f"sections: {why} in a template", bool(refused))
    assert refused and refused[0].why == why, (lines, refused)


def test_a_banner_closed_on_its_own_line_is_understood_as_the_device_reads_it() -> None:
    """IOS ends a banner at the second appearance of its delimiter: one line, one banner."""
    assert misplaced_lines(["banner motd ^Authorized lab users only^"], ["banner motd *"]) == []
    assert misplaced_lines(['header shell information "lab"'], ["header shell *"]) == []


NOT_SECTIONS = [
    ["*"],
    [" * "],
    ["* / *"],
    ["router ospf * / *"],
    ["router ospf * / * network"],
    ["?outer ospf 1 / network *"],
    ["[a-z]* / network *"],
    ["router ospf * /  / network *"],
    [""],
    ["router ospf *\nsnmp-server *"],
    [],
]


@pytest.mark.parametrize("sections", NOT_SECTIONS, ids=[repr(s) for s in NOT_SECTIONS])
def test_a_section_that_admits_anything_is_refused(sections: list[str]) -> None:
    problems = section_errors(sections)
    attempt("sections: a section admitting anything declared", bool(problems))
    assert problems


@pytest.mark.parametrize("sections", NOT_SECTIONS, ids=[repr(s) for s in NOT_SECTIONS])
def test_a_section_that_admits_anything_admits_nothing_when_lines_are_judged(
    sections: list[str],
) -> None:
    """A pattern that is no section (or a JSON list or number where text belongs, as a model
    may answer) lets no line through, beside a real one: it is never widened."""
    declared: list[object] = [*OSPF, *sections, ["snmp-server *"], 7, None]
    refused = misplaced_lines([HEADER, NETWORK, SNMP], declared)  # type: ignore[arg-type]
    attempt("sections: a line let in by a pattern that is no section", len(refused) == 1)
    assert [(m.number, m.why) for m in refused] == [(3, "outside")]


@pytest.mark.parametrize(
    "child",
    [f" {SNMP}", " no ip routing", " no router ospf 1", NETWORK, " router-id 1.1.1.1"],
)
def test_a_bare_top_level_section_admits_its_header_and_nothing_under_it(child: str) -> None:
    """`router ospf *` admits the line `router ospf 1`; its children must be declared."""
    refused = misplaced_lines([HEADER, child], ["router ospf *"])
    attempt("sections: a child under a bare top-level section", len(refused) == 1)
    assert [(m.number, m.why) for m in refused] == [(2, "outside")]


# (platform, declared sections that let the lines pass as written, lines, where one lands)
LENIENT = [
    "router ospf * / network *",
    "router ospf * / snmp-server *",
    "router ospf * / no *",
    "router ospf * / ip *",
    "interface * / ip *",
    "interface * / no *",
    "interface * / snmp-server *",
    "interface * / spanning-tree *",
]
DROPPED_TO_GLOBAL = [
    ("cisco_ios", [HEADER, f" {SNMP}"], SNMP),
    ("cisco_ios", [HEADER, " no ip routing"], "no ip routing"),
    ("cisco_ios", [HEADER, NETWORK, f" {SNMP}", NETWORK], SNMP),
    ("cisco_ios", [HEADER, " ip http server"], "ip http server"),
    ("cisco_ios", [HEADER, " ip route 0.0.0.0 0.0.0.0 Null0"], "ip route 0.0.0.0 0.0.0.0 Null0"),
    ("cisco_ios", ["interface GigabitEthernet0/1", " ip route 10.6.0.0 255.255.0.0 Null0"],
     "ip route 10.6.0.0 255.255.0.0 Null0"),
    ("cisco_ios", ["interface GigabitEthernet0/1", " ip domain-name evil.example"],
     "ip domain-name evil.example"),
    ("cisco_ios", ["interface GigabitEthernet0/1", f" {SNMP}"], SNMP),
    ("cisco_ios", ["interface GigabitEthernet0/1", " no ip routing"], "no ip routing"),
    # the bridge's priority, not the port's: IOS makes the device root of every VLAN
    ("cisco_ios", ["interface GigabitEthernet0/1", " spanning-tree vlan 1-4094 priority 0"],
     "spanning-tree vlan 1-4094 priority 0"),
    ("cisco_ios", ["interface GigabitEthernet0/1", " spanning-tree vlan 1 pri 0"],
     "spanning-tree vlan 1 pri 0"),
    ("cisco_ios", ["interface GigabitEthernet0/1", " spanning-tree mode mst"],
     "spanning-tree mode mst"),
    ("cisco_ios", ["interface GigabitEthernet0/1", " ip host evil 10.6.6.6"],
     "ip host evil 10.6.6.6"),
    ("cisco_ios", ["interface GigabitEthernet0/1", " ip default-gateway 10.6.6.6"],
     "ip default-gateway 10.6.6.6"),
    ("cisco_ios", ["interface GigabitEthernet0/1", " ip ospf name-lookup"], "ip ospf name-lookup"),
    ("arista_eos", ["router ospf 1", " snmp-server community X rw"], "snmp-server community X rw"),
    ("arista_eos", ["interface Ethernet1", " ip route 0.0.0.0/0 Null0"],
     "ip route 0.0.0.0/0 Null0"),
    ("arista_eos", ["interface Ethernet1", " spanning-tree mst 0 priority 0"],
     "spanning-tree mst 0 priority 0"),
]  # fmt: skip


def running(platform: str) -> str:
    """R1 of the demo lab as it boots, with OSPF process 1 configured already."""
    spec = demo_topology(1).devices[0 if platform == "cisco_ios" else 1]
    booted = twin_run(spec.name, platform, initial_config(spec), [])
    return twin_run(spec.name, platform, booted.after, [HEADER, NETWORK]).after


@pytest.mark.parametrize(
    ("platform", "lines", "lands"), DROPPED_TO_GLOBAL, ids=[c[2] for c in DROPPED_TO_GLOBAL]
)
def test_a_line_the_device_drops_to_global_is_shown_there_and_is_outside(
    platform: str, lines: list[str], lands: str
) -> None:
    assert misplaced_lines(lines, LENIENT) == []  # as written, every line is inside
    run = twin_run("R1", platform, running(platform), lines)
    paths = landed_paths(run.before, run.after, platform)
    outside = outside_places(paths, LENIENT)
    attempt(f"sections: a line {platform} runs in global config", lands in outside)
    assert lands in outside, (paths, run.refused)
    assert f"+ {lands}" in landed_text(paths)  # at the top level, where approvers see it


def test_removing_a_whole_section_from_inside_it_is_seen_as_the_removal() -> None:
    run = twin_run("R1", "cisco_ios", running("cisco_ios"), [HEADER, " no router ospf 1"])
    paths = landed_paths(run.before, run.after, "cisco_ios")
    attempt("sections: `no router ospf` indented into its own section", bool(paths))
    assert outside_places(paths, LENIENT) == ["no router ospf 1"]


def test_lines_that_stay_in_their_section_are_inside_and_shown_in_place() -> None:
    run = twin_run(
        "R1", "cisco_ios", running("cisco_ios"), [HEADER, " network 10.9.0.0 0.0.0.255 area 0"]
    )
    paths = landed_paths(run.before, run.after, "cisco_ios")
    assert outside_places(paths, OSPF) == []
    assert landed_text(paths) == ["  router ospf 1", "+  network 10.9.0.0 0.0.0.255 area 0"]


def test_a_port_s_spanning_tree_and_ip_lines_stay_under_their_interface() -> None:
    lines = [
        "interface GigabitEthernet0/1",
        " spanning-tree portfast",
        " spanning-tree vlan 10 cost 100",
        " spanning-tree vlan 20 port-priority 64",
        " ip ospf cost 10",
    ]
    run = twin_run("R1", "cisco_ios", running("cisco_ios"), lines)
    paths = landed_paths(run.before, run.after, "cisco_ios")
    assert outside_places(paths, ["interface * / spanning-tree *", "interface * / ip ospf *"]) == []
    assert len(paths) == 4, paths


def test_a_line_refused_everywhere_leaves_the_copy_in_its_section_as_ios_does() -> None:
    lines = [HEADER, " no-such-command 1", " network 10.8.0.0 0.0.0.255 area 0"]
    run = twin_run("R1", "cisco_ios", running("cisco_ios"), lines)
    assert [r.split(":")[0] for r in run.refused] == ["no-such-command 1"]
    paths = landed_paths(run.before, run.after, "cisco_ios")
    assert paths == [["router ospf 1", "network 10.8.0.0 0.0.0.255 area 0"]]
