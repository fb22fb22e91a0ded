from bot.views.device_lines import device_lines_sections, removed_lines
from tests.support.masks import MASK
from workflow.devices.diffing import preview_diff
from workflow.phases.landing import Landing
from workflow.phases.previews import DevicePreview

RUNNING = "hostname R1\ninterface GigabitEthernet0/1\n description old\n shutdown\n"
OSPF = [
    "interface GigabitEthernet0/1",
    " ip ospf cost 5",
    "router ospf 1",
    " passive-interface default",
]


def preview(
    platform: str, lines: list[str], diff: str, landing: Landing | None = None
) -> DevicePreview:
    device = DevicePreview(platform=platform, params={}, lines=lines, diff=diff, blocked=[])
    if landing is not None:
        device["landing"] = landing
    return device


def shown(device: DevicePreview) -> dict[str, str]:
    return {title: body for title, body, _ in device_lines_sections("R1", device, MASK)}


def test_each_line_is_shown_once_with_where_it_lands_and_an_adding_diff_not_at_all() -> None:
    diff = preview_diff(RUNNING, OSPF, "cisco_ios")
    sections = shown(preview("cisco_ios", OSPF, diff))
    assert sections == {
        "R1 configuration": (
            "interface GigabitEthernet0/1  ← global\n"
            " ip ospf cost 5               ← interface GigabitEthernet0/1\n"
            "router ospf 1                 ← global\n"
            " passive-interface default    ← router ospf 1"
        )
    }


def test_running_lines_a_change_replaces_are_shown_under_their_headers_alone() -> None:
    lines = ["interface GigabitEthernet0/1", " description new", "ntp server 10.0.0.9"]
    diff = preview_diff(RUNNING, lines, "cisco_ios")
    sections = shown(preview("cisco_ios", lines, diff))
    removed = sections["R1: running lines it removes or replaces"]
    assert removed == "interface GigabitEthernet0/1\n  - description old"


def test_removed_lines_of_nested_sections_keep_each_header_once() -> None:
    diff = "\n".join(
        [
            "router bgp 1",
            "  address-family ipv4",
            "    - network 1.0.0.0",
            "    - network 2.0.0.0",
            "  - neighbor 10.0.0.2 remote-as 2",
            "  + neighbor 10.0.0.3 remote-as 3",
        ]
    )
    assert removed_lines(diff).splitlines() == [
        "router bgp 1",
        "  address-family ipv4",
        "    - network 1.0.0.0",
        "    - network 2.0.0.0",
        "  - neighbor 10.0.0.2 remote-as 2",
    ]


def test_without_a_grammar_the_copys_landing_says_where_each_line_lands_once() -> None:
    lines = ["interface eth0", " ip ospf area 0", "router ospf", " ospf router-id 10.0.0.1"]
    landed = [
        "  interface eth0",
        "+  ip ospf area 0",
        "+ router ospf",
        "+  ospf router-id 10.0.0.1",
    ]
    landing = Landing(twin="frr", landed=landed, outside=[], refused=[])
    sections = shown(preview("frr", lines, "", landing=landing))
    assert sections == {
        "R1 configuration": (
            "interface eth0            ← global\n"
            " ip ospf area 0           ← interface eth0\n"
            "router ospf               ← global\n"
            " ospf router-id 10.0.0.1  ← router ospf"
        )
    }


def test_the_copys_view_is_shown_where_it_holds_a_line_otherwise_than_written() -> None:
    lines = ["interface eth0", " ip ospf area 0"]
    landed = ["  interface eth0", "+  ip ospf area 0.0.0.0"]
    landing = Landing(twin="frr", landed=landed, outside=[], refused=["x: % Unknown command"])
    sections = shown(preview("frr", lines, "", landing=landing))
    assert sections["R1 configuration"] == "interface eth0   ← global\n ip ospf area 0"
    assert sections["R1: where its copy holds them (not just as written)"] == "\n".join(landed)
    assert sections["R1: lines its copy refused"] == "x: % Unknown command"
