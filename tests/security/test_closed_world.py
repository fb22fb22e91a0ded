"""Closed world: a line is inside a sub-mode only where the platform's grammar puts it there.

Lines that share a first word with an interface command but are global commands on IOS and EOS
(by the vendors' command references) are shown where they land, `global`, and refused unless a
section declares them there; on the twin (labsim) they land there too. Lines that belong to the
interface stay. A line no mode knows is refused as unknown to labbot's model."""

from __future__ import annotations

from pathlib import Path

import pytest

from base.grammar import grammar_for, model_of
from labsim.trial import twin_run
from tests.bot.test_cli import labbot
from tests.security.tally import attempt
from workflow.devices.diffing import landed_paths
from workflow.devices.facts import management_interface
from workflow.model import InterfaceFacts
from workflow.safety.deny import DenyList
from workflow.safety.sections import line_places, misplaced_lines

INTERFACE = {"cisco_ios": "interface GigabitEthernet0/1", "arista_eos": "interface Ethernet1"}
# believable sections: the interface's ip, ipv6, arp, logging, … lines
BELIEVABLE = [
    f"interface * / {word} *"
    for word in ("ip", "ipv6", "arp", "logging", "cdp", "lldp", "mpls", "spanning-tree")
]
GLOBAL_ON_IOS = [
    "ip rcmd rsh-enable",
    "ip rcmd remote-host root 6.6.6.6 root enable",
    "arp 10.0.0.1 dead.beef.0001 arpa",
    "ip pim rp-address 10.0.0.9",
    "ip mroute 10.9.0.0 255.255.0.0 10.0.0.9",
    "ip tcp synwait-time 5",
    "ipv6 host evil 2001:db8::6",
    "ipv6 prefix-list P permit ::/0",
    "logging rate-limit 10",
    "cdp timer 5",
    "mpls ldp router-id Loopback0",
    "lldp timer 5",
]
GLOBAL_ON_EOS = [
    *GLOBAL_ON_IOS,
    "ip igmp snooping vlan 10 querier",
    "ip dhcp relay always-on",
    "ip ftp client source-interface Ethernet1",
]
CASES = [("cisco_ios", line) for line in GLOBAL_ON_IOS] + [
    ("arista_eos", line) for line in GLOBAL_ON_EOS
]
STAYS = ["ip address 10.1.1.1 255.255.255.0", "ip ospf cost 10", "ipv6 address 2001:db8::1/64"]
STAYS_ON = {"cisco_ios": [*STAYS, "arp timeout 300"], "arista_eos": STAYS}


@pytest.mark.parametrize(("family", "line"), CASES, ids=[f"{f}:{line}" for f, line in CASES])
def test_a_global_line_under_an_interface_lands_global_and_is_refused_unless_declared(
    family: str, line: str
) -> None:
    lines = [INTERFACE[family], f" {line}"]
    assert line_places(lines, family) == ["global", "global"]
    refused = misplaced_lines(lines, BELIEVABLE, family)
    attempt(f"closed world: a global line under an interface ({family})", bool(refused))
    [problem] = refused
    assert (problem.number, problem.why, problem.place) == (2, "lands", (line,))
    assert f"`{line}` is not a command of the mode it is written in" in str(problem)
    declared = [*BELIEVABLE, f"{line.split()[0]} *"]
    assert misplaced_lines(lines, declared, family) == []  # declared where it really lands


@pytest.mark.parametrize(("family", "line"), CASES, ids=[f"{f}:{line}" for f, line in CASES])
def test_the_twin_runs_the_line_where_the_grammar_says(family: str, line: str) -> None:
    run = twin_run("R1", family, "hostname R1\n", [INTERFACE[family], f" {line}"])
    paths = landed_paths(run.before, run.after, family)
    assert run.refused == []
    spelled = " ".join(line.split())
    assert [spelled] in paths or any(p[-1] == spelled and len(p) == 1 for p in paths), paths


# global commands whose first words an interface (or a terminal line) also has, with other
# second or third words there: the sub-mode's reading fails and IOS runs them globally
SHARED_WORDS = [
    (INTERFACE["cisco_ios"], "service internal"),
    (INTERFACE["cisco_ios"], "clock timezone UTC 0"),
    (INTERFACE["cisco_ios"], "dot1x system-auth-control"),
    (INTERFACE["cisco_ios"], "ip igmp ssm-map enable"),
    (INTERFACE["cisco_ios"], "mpls label range 100 200"),
    (INTERFACE["cisco_ios"], "mpls ldp discovery hello interval 1"),
    (INTERFACE["cisco_ios"], "ipv6 pim bsr candidate bsr 2001:db8::1"),
    (INTERFACE["cisco_ios"], "ipv6 router ospf 1"),
    (INTERFACE["cisco_ios"], "ip multicast multipath"),
    ("line vty 0 4", "login block-for 60 attempts 1 within 60"),
    ("router ospf 1", "bfd slow-timers 2000"),
    ("router ospf 1", "mpls traffic-eng tunnels"),
]


EOS_SHARED_WORDS = [
    "vrf instance MGMT",
    "mlag configuration",
    "sflow destination 10.6.6.6",
    "ip virtual-router mac-address 00:1c:73:00:00:99",
]


@pytest.mark.parametrize("line", EOS_SHARED_WORDS)
def test_an_eos_global_command_sharing_its_first_word_leaves_the_interface(line: str) -> None:
    lines = [INTERFACE["arista_eos"], f" {line}"]
    assert line_places(lines, "arista_eos") == ["global", "global"]
    kept = [INTERFACE["arista_eos"], " vrf MGMT", " mlag 10", " ip virtual-router address 10.0.0.1"]
    assert line_places(kept, "arista_eos") == ["global", *[INTERFACE["arista_eos"]] * 3]


VRP_SHARED_WORDS = [
    ("interface GigabitEthernet0/0/1", "ospf 1 router-id 10.6.6.6"),
    ("interface GigabitEthernet0/0/1", "stp priority 0"),
    ("interface GigabitEthernet0/0/1", "isis 1"),
    ("interface GigabitEthernet0/0/1", "port-isolate mode all"),
    ("user-interface vty 0 4", "acl 3000"),
]


@pytest.mark.parametrize(
    ("header", "line"), VRP_SHARED_WORDS, ids=[ln for _, ln in VRP_SHARED_WORDS]
)
def test_a_vrp_system_view_command_leaves_the_view_it_is_typed_in(header: str, line: str) -> None:
    [_, where] = grammar_for("huawei_vrp").place([header, f" {line}"])  # type: ignore[union-attr]
    assert where.place == "global" and where.known, where
    kept = [header, " ospf cost 10" if header.startswith("interface") else " acl 2000 inbound"]
    assert line_places(kept, "huawei_vrp") == ["global", header]


@pytest.mark.parametrize(("header", "line"), SHARED_WORDS, ids=[ln for _, ln in SHARED_WORDS])
def test_a_global_command_sharing_two_words_with_the_mode_leaves_it(header: str, line: str) -> None:
    lines = [header, f" {line}"]
    assert line_places(lines, "cisco_ios") == ["global", "global"]
    run = twin_run("R1", "cisco_ios", "hostname R1\n", lines)
    assert [" ".join(line.split())] in landed_paths(run.before, run.after, "cisco_ios")


@pytest.mark.parametrize("family", sorted(STAYS_ON))
def test_lines_that_belong_to_the_interface_stay_there(family: str) -> None:
    lines = [INTERFACE[family], *(f" {line}" for line in STAYS_ON[family])]
    places = line_places(lines, family)
    assert places == ["global", *[INTERFACE[family]] * len(STAYS_ON[family])]
    assert misplaced_lines(lines, BELIEVABLE, family) == []


@pytest.mark.parametrize("family", sorted(INTERFACE))
def test_a_line_no_mode_knows_is_refused_as_unknown(family: str) -> None:
    lines = [INTERFACE[family], " frobnicate the port"]
    [problem] = misplaced_lines(lines, ["interface *", "interface * / frobnicate *"], family)
    attempt("closed world: a line no mode knows", problem.why == "unknown")
    assert problem.why == "unknown"
    assert "labbot cannot tell where the device would run it" in str(problem)


def test_after_a_line_leaves_the_interface_the_next_ones_run_in_global_as_on_ios() -> None:
    lines = [INTERFACE["cisco_ios"], " arp 10.0.0.1 dead.beef.0001 arpa", " ip ospf cost 10"]
    assert line_places(lines, "cisco_ios") == ["global", "global", "global"]


def test_abbreviations_are_read_as_the_device_spells_them_out() -> None:
    [_, where] = grammar_for("cisco_ios").place([INTERFACE["cisco_ios"], " ip rc rsh-enable"])  # type: ignore[union-attr]
    assert (where.place, where.spelled) == ("global", "ip rcmd rsh-enable")
    verdict = DenyList().check(
        [INTERFACE["cisco_ios"], " ip rc remote-host r 6.6.6.6 r en"], "cisco_ios"
    )
    assert [v.rule for v in verdict] == ["rcmd"]


def test_on_a_platform_without_a_model_a_sub_mode_line_cannot_be_placed() -> None:
    lines = ["interface Ethernet1/1", " ip address 10.0.0.1/24"]
    [problem] = misplaced_lines(lines, ["interface *", "interface * / ip address *"], "cisco_nxos")
    assert (problem.number, problem.why) == (2, "unplaced")
    assert model_of("cisco_nxos").startswith("no model")
    assert "FRR router" in model_of("frr") and "set" in model_of("juniper_junos")


DENIED = [
    ("cisco_ios", "ip rcmd remote-host root 6.6.6.6 root enable", "rcmd"),
    ("cisco_ios", "tftp-server flash:config.text", "tftp-server"),
    ("cisco_ios", "arp 10.0.0.1 dead.beef.0001 arpa", "static-arp"),
    ("cisco_ios", "no access-list 10", "acl-removal"),
    ("cisco_ios", "login block-for 3600 attempts 1 within 3600", "login-block"),
    ("cisco_ios", "file prompt quiet", "file-prompt"),
    ("cisco_ios", "crypto key generate rsa modulus 512", "ssh-keys"),
    ("cisco_ios", "no service password-encryption", "clear-passwords"),
    ("arista_eos", "arp 10.0.0.1 dead.beef.0001 arpa", "static-arp"),
    ("frr", "lo fi /etc/cron.d/x", "log-file"),
    ("frr", "no service integrated-vtysh-config", "vtysh-config"),
    ("frr", "agentx", "agentx"),
    ("frr", "do write file", "write"),
    ("frr", "ip protocol any route-map DENY", "kernel-filter"),
]


@pytest.mark.parametrize(
    ("family", "line", "rule"), DENIED, ids=[f"{f}:{ln}" for f, ln, _ in DENIED]
)
def test_the_deny_list_refuses_each_form_that_passed(family: str, line: str, rule: str) -> None:
    found = DenyList().check([line], family)
    attempt(f"closed world: deny-list form ({family})", bool(found))
    assert [v.rule for v in found] == [rule]


def test_a_short_vty_timeout_is_refused_and_an_ordinary_one_passes() -> None:
    deny = DenyList()
    assert [v.rule for v in deny.check(["line vty 0 4", " exec-timeout 0 1"], "cisco_ios")] == [
        "terminal-lines"
    ]
    assert deny.check(["line vty 0 4", " exec-timeout 10 0"], "cisco_ios") == []
    assert deny.check(["line vty", " exec-timeout 0 1"], "frr") != []


RCMD_TEMPLATE = """\
description: an interface's ip lines
params_schema: {}
example_params: {}
sections:
  - interface * / ip *
templates:
  cisco_ios: |
    interface GigabitEthernet0/1
     ip rcmd rsh-enable
"""


def test_templates_save_refuses_a_global_line_declared_under_an_interface(tmp_path: Path) -> None:
    env = {"LABBOT_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'lib.db'}"}
    (tmp_path / "rsh.yaml").write_text(RCMD_TEMPLATE)
    saved = labbot("templates", "save", "rsh.yaml", cwd=tmp_path, env=env)
    assert saved.returncode == 2 and "rsh was not saved" in saved.stderr
    said = " ".join(saved.stderr.split())
    assert "`ip rcmd rsh-enable` is not a command of the mode it is written in" in said
    assert "(lands at: global)" in said


def test_the_interface_labbot_reaches_the_device_through_is_a_management_interface() -> None:
    interfaces: list[InterfaceFacts] = [
        {"name": "GigabitEthernet0/0", "address": "192.0.2.11/24", "enabled": True},
        {"name": "GigabitEthernet0/1", "address": "10.0.12.1/24", "enabled": True},
    ]
    assert management_interface("192.0.2.11", interfaces) == "GigabitEthernet0/0"
    assert management_interface("gns3.lab.example", interfaces) is None
    assert management_interface("127.0.0.1", interfaces) is None
    acl = [" ip access-group VTY-ONLY in"]
    deny = DenyList()
    reached = deny.check(["interface Gi0/0", *acl], "cisco_ios", management="GigabitEthernet0/0")
    attempt("closed world: an ACL on the interface labbot reaches", bool(reached))
    assert [v.rule for v in reached] == ["mgmt-interface"]
    assert deny.check(["interface Gi0/1", *acl], "cisco_ios", management="GigabitEthernet0/0") == []
    assert deny.check(["interface Gi0/0", *acl], "cisco_ios") == []  # not known: a name decides
    frr = deny.check(["interface eth0", " ip address 10.6.6.6/24"], "frr", management="eth0")
    assert [v.rule for v in frr] == ["mgmt-interface"]
