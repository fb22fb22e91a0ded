"""The OSPF sessions the `topology` picture colours its links by, from each end's neighbours."""

from __future__ import annotations

from bot.topology.running_sessions import link_sessions
from bot.topology.scene import scene_of
from workflow.api import LabLayout
from workflow.model import Link

LAYOUT = LabLayout(
    devices=("R1", "R2", "R3"),
    links=(
        Link(a_device="R1", a_interface="eth0", b_device="R2", b_interface="eth0"),
        Link(a_device="R2", a_interface="eth1", b_device="R3", b_interface="eth0"),
    ),
    addresses={
        "R1": {"eth0": "10.0.12.1/30"},
        "R2": {"eth0": "10.0.12.2/30", "eth1": "10.0.23.1/30"},
        "R3": {"eth0": "10.0.23.2/30"},
    },
)


def states(neighbours: dict[str, dict[str, str]]) -> dict[tuple[str, str], str]:
    running = link_sessions(LAYOUT, neighbours)
    return {(link.a, link.b): link.state for link in scene_of(LAYOUT, running=running).links}


def test_a_link_is_up_where_both_ends_are_full_down_where_one_is_not_else_unchecked() -> None:
    assert states({"R1": {"10.0.12.2": "Full"}, "R2": {"10.0.12.1": "Full"}}) == {
        ("R1", "R2"): "up",
        ("R2", "R3"): "unchecked",  # no neighbour seen there: no OSPF on it, nothing said
    }
    assert states({"R2": {"10.0.12.1": "Full", "10.0.23.2": "ExStart"}}) == {
        ("R1", "R2"): "up",
        ("R2", "R3"): "down",
    }
    assert states({}) == {("R1", "R2"): "unchecked", ("R2", "R3"): "unchecked"}
