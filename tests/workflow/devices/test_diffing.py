"""Preview diffs, rollbacks and verification, all computed by hier_config."""

from __future__ import annotations

from workflow.devices.diffing import missing_lines, preview_diff, rollback_lines

RUNNING = """hostname R1
!
interface GigabitEthernet0/0
 ip address 10.0.12.1 255.255.255.0
!
router ospf 1
 network 10.0.12.0 0.0.0.255 area 0
!
end
"""

OSPF_COST = ["interface GigabitEthernet0/0", " ip ospf cost 10"]
BGP = ["router bgp 65001", " neighbor 10.0.12.2 remote-as 65002"]


def test_preview_shows_only_what_the_lines_add() -> None:
    diff = preview_diff(RUNNING, OSPF_COST + BGP, "cisco_ios_telnet")
    lines = diff.splitlines()
    assert "+ router bgp 65001" in lines
    assert any(line.strip() == "+ neighbor 10.0.12.2 remote-as 65002" for line in lines)
    assert any(line.strip() == "+ ip ospf cost 10" for line in lines)
    assert not any("hostname" in line for line in lines)


def test_preview_of_lines_already_present_is_empty() -> None:
    assert (
        preview_diff(RUNNING, ["router ospf 1", " network 10.0.12.0 0.0.0.255 area 0"], "cisco_ios")
        == ""
    )


def test_preview_shows_removal_by_negation() -> None:
    diff = preview_diff(RUNNING, ["no router ospf 1"], "cisco_ios")
    assert "- router ospf 1" in diff.splitlines()


def test_rollback_removes_a_whole_new_section_with_one_negation() -> None:
    current = RUNNING.replace("end", "router bgp 65001\n neighbor 10.0.12.2 remote-as 65002\nend")
    assert rollback_lines(RUNNING, current, "cisco_ios_telnet") == ["no router bgp 65001"]


def test_rollback_restores_changed_and_removed_lines() -> None:
    current = RUNNING.replace("10.0.12.1 255.255.255.0", "10.9.9.1 255.255.255.0").replace(
        "router ospf 1\n network 10.0.12.0 0.0.0.255 area 0\n", ""
    )
    lines = [line.strip() for line in rollback_lines(RUNNING, current, "cisco_ios")]
    assert "ip address 10.0.12.1 255.255.255.0" in lines
    assert "router ospf 1" in lines
    assert "network 10.0.12.0 0.0.0.255 area 0" in lines
    assert lines.index("interface GigabitEthernet0/0") < lines.index(
        "ip address 10.0.12.1 255.255.255.0"
    )


def test_rollback_of_unchanged_config_is_empty() -> None:
    assert rollback_lines(RUNNING, RUNNING, "cisco_ios") == []


def test_rollback_on_eos_uses_eos_rules() -> None:
    backup = "hostname SW1\ninterface Ethernet1\n   no switchport\n"
    current = backup + "router ospf 1\n   router-id 1.1.1.1\n"
    assert rollback_lines(backup, current, "arista_eos_telnet") == ["no router ospf 1"]


def test_verification_finds_nothing_missing_after_a_good_push() -> None:
    pushed = [
        "interface GigabitEthernet0/0",
        " no shutdown",
        "router ospf 1",
        " network 10.0.12.0 0.0.0.255 area 0",
        " exit",
    ]
    assert missing_lines(RUNNING, pushed) == []


def test_verification_names_each_missing_line_with_its_parents() -> None:
    pushed = [
        "interface GigabitEthernet0/0",
        " no ip address",
        "router ospf 2",
        " network 1.0.0.0 0.0.0.255 area 0",
        "no router ospf 1",
    ]
    assert missing_lines(RUNNING, pushed) == [
        "interface GigabitEthernet0/0 > no ip address",
        "router ospf 2",
        "router ospf 2 > network 1.0.0.0 0.0.0.255 area 0",
        "no router ospf 1",
    ]


def test_a_one_line_banner_is_previewed_as_ios_shows_it() -> None:
    diff = preview_diff("hostname R1\n", ["banner motd ^Authorized lab users only^"], "cisco_ios")
    assert diff.splitlines() == ["+ banner motd ^C", "Authorized lab users only", "^C"]


def test_a_pushed_one_line_banner_is_found_in_the_running_config() -> None:
    running = "hostname R1\nbanner motd ^C\nlab-only\n^C\n"
    assert missing_lines(running, ["banner motd ^lab-only^"]) == []
    assert missing_lines("hostname R1\n", ["banner motd ^lab-only^"]) != []


FRR_BEFORE = """Building configuration...

Current configuration:
!
frr version 8.4.4
frr defaults traditional
hostname R1
!
interface eth0
 description to R2
 ip address 10.0.12.1/30
exit
!
interface lo
 ip address 10.255.0.1/32
exit
!
end
"""
FRR_AFTER = FRR_BEFORE.replace(
    "end\n",
    """router bgp 65001
 no bgp ebgp-requires-policy
 neighbor 10.0.12.2 remote-as 65002
 !
 address-family ipv4 unicast
  network 10.255.0.1/32
 exit-address-family
exit
!
router ospf
 ospf router-id 10.255.0.1
 network 10.0.12.0/30 area 0
exit
!
end
""",
).replace(" description to R2\n", " description core link\n ip ospf hello-interval 1\n")


def test_frr_configs_with_exit_lines_diff_and_roll_back_like_ios() -> None:
    diff = preview_diff(FRR_BEFORE, ["router ospf", " ospf router-id 10.255.0.1", "exit"], "frr")
    assert diff.splitlines() == ["+ router ospf", "  + ospf router-id 10.255.0.1"]
    assert rollback_lines(FRR_BEFORE, FRR_AFTER, "frr_telnet") == [
        "no router bgp 65001",
        "no router ospf",
        "interface eth0",
        "  no ip ospf hello-interval 1",
        "  description to R2",
        "  exit",
    ]
