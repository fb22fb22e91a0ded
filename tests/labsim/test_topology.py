"""Topology files and generated demo topologies."""

from __future__ import annotations

import ipaddress
from pathlib import Path

import pytest

from base.errors import InventoryError
from labsim import DEMO_TOPOLOGY_FILE, Fault, TopologyError, demo_topology, load_topology


def test_shipped_demo_topology_loads() -> None:
    topology = load_topology(DEMO_TOPOLOGY_FILE)
    assert [d.name for d in topology.devices] == ["R1", "R2", "R3", "SW1"]
    assert topology.device("SW1").platform == "arista_eos"
    assert topology.peer("R2", "GigabitEthernet0/1") == ("R3", "GigabitEthernet0/0")
    r1 = {i.name: i for i in topology.device("R1").interfaces}
    assert r1["GigabitEthernet0/0"].address == ipaddress.IPv4Interface("10.0.12.1/30")


@pytest.mark.parametrize("count", [1, 3, 100])
def test_demo_topology_links_are_consistent_point_to_point_subnets(count: int) -> None:
    topology = demo_topology(count, ring=True)
    for link in topology.links:
        ends = [
            next(i for i in topology.device(dev).interfaces if i.name == name)
            for dev, name in (link.a, link.b)
        ]
        addresses = [end.address for end in ends]
        assert all(addresses) and addresses[0] != addresses[1]
        assert addresses[0].network == addresses[1].network  # type: ignore[union-attr]
    loopbacks = [i.address for d in topology.devices for i in d.interfaces if i.name == "Loopback0"]
    assert len(set(loopbacks)) == count + 1  # every router and the switch
    assert len(topology.links) == (count - 1) + (1 if count > 2 else 0) + 1


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "lab.yaml"
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("devices: [R1", "not valid YAML"),
        ("routers: {}", "'devices' mapping"),
        ("devices: {R1: {platform: junos_xx}}", "platform 'junos_xx'"),
        ("devices: {R1: {interfaces: {Gi0/0: {address: 10.0.0.300/24}}}}", "bad address"),
        ("devices: {R1: {colour: red}}", "unknown keys ['colour']"),
        ("devices: {R1: {fault: explode}}", "unknown fault 'explode'"),
        ("devices: {R1: {}}\nlinks: [[R1:Gi0/0, R2:Gi0/0]]", "no device R2"),
        ("devices: {R1: {}}\nlinks: [[R1:Gi0/0, R1:Gi0/1]]", "R1 has no such interface"),
        ("devices: {R1: {}}\nlinks: [R1-R2]", "expected [DEVICE:INTERFACE"),
    ],
)
def test_bad_topology_files_name_the_file_and_the_problem(
    tmp_path: Path, text: str, problem: str
) -> None:
    path = write(tmp_path, text)
    with pytest.raises(TopologyError) as caught:
        load_topology(path)
    assert str(path) in str(caught.value) and problem in str(caught.value)
    assert isinstance(caught.value, InventoryError)


def test_missing_file_is_a_topology_error(tmp_path: Path) -> None:
    with pytest.raises(TopologyError, match=r"cannot read topology file .*nope\.yaml"):
        load_topology(tmp_path / "nope.yaml")


def test_faults_and_rejects_are_read_from_the_file(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "devices:\n  R1: {fault: refuse}\n  R2: {fault: {drop_after: 3}, reject: ['^ntp']}\n"
        "  R3: {fault: drop_at_exit}\n",
    )
    topology = load_topology(path)
    assert topology.device("R1").fault == Fault("refuse")
    assert topology.device("R2").fault == Fault("drop_after", 3)
    assert topology.device("R2").reject == ("^ntp",)
    assert topology.device("R3").fault == Fault("drop_at_exit")
