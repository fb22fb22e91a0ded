"""FRR topology files and generated chains/rings (pure: no root needed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from frrlab import DEFAULT_TOPOLOGY_FILE, generated_topology, load_frr_topology
from frrlab.daemons import zebra_config
from labsim import TopologyError


def test_default_file_is_a_three_router_chain() -> None:
    topology = load_frr_topology(DEFAULT_TOPOLOGY_FILE)
    assert [d.name for d in topology.devices] == ["R1", "R2", "R3"]
    assert topology.peer("R2", "eth1") == ("R3", "eth0")
    r1 = topology.device("R1")
    assert r1.platform == "frr"
    assert r1.data == {"role": "router", "loopback": "10.255.0.1", "asn": 65001}


def test_generated_ring_uses_linux_names() -> None:
    topology = generated_topology(4, ring=True)
    assert topology.peer("R4", "eth1") == ("R1", "eth1")
    assert [i.name for i in topology.device("R1").interfaces] == ["lo", "eth0", "eth1"]
    assert topology.device("R3").data["asn"] == 65003


def test_zebra_config_has_the_addresses_and_descriptions() -> None:
    r2 = load_frr_topology(DEFAULT_TOPOLOGY_FILE).device("R2")
    config = zebra_config(r2)
    assert "hostname R2" in config
    assert "interface eth1\n description to R3\n ip address 10.0.23.1/30\nexit" in config


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("routers: {}", "'routers' is empty"),
        ("routers: {R1: {interfaces: {Gi0/0: {}}}}", "not a Linux interface name"),
        ("routers: {R1: {platform: cisco_ios}}", "platform must be frr"),
        ("routers: {R1: {interfaces: {eth0: {address: 10.0.0.300/24}}}}", "bad address"),
        ("routers: {'R 1': {}}", "use letters, digits"),
        ("routers: {R1: {interfaces: {eth0: {}}}}\nlinks: [[R1:eth0, R9:eth0]]", "R9:eth0"),
        ("routers: {R1: {interfaces: {eth0: {}}}}\nlinks: [[R1:eth0, R1:eth1]]", "no such"),
        ("routers: {R1: {interfaces: {lo: {}, eth0: {}}}}\nlinks: [[R1:eth0, R1:lo]]", "loopback"),
    ],
)
def test_bad_files_are_one_error_naming_the_file(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / "lab.yaml"
    path.write_text(text)
    with pytest.raises(TopologyError) as caught:
        load_frr_topology(path)
    assert str(path) in str(caught.value)
    assert problem in str(caught.value)


def test_router_count_is_bounded() -> None:
    with pytest.raises(TopologyError, match="1 to 50 routers, not 51"):
        generated_topology(51)
