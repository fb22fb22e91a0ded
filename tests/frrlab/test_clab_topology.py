"""containerlab topology files (`*.clab.yml`) run as FRR labs: routers, hosts, errors, OSPF."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from frrlab import FrrLab
from frrlab.clab import load_clab_topology
from frrlab.serve import not_run_line
from labsim import TopologyError

OSPF3 = Path(__file__).with_name("fixtures") / "ospf3" / "ospf3.clab.yml"
LABBOT = str(Path(sys.executable).parent / "labbot")
pytestmark = pytest.mark.xdist_group("frr-lab")  # see tests/frrlab/__init__.py
CONVERGE_SECONDS = 40.0


def test_frr_nodes_are_routers_with_the_endpoints_interfaces_and_config_addresses() -> None:
    lab = load_clab_topology(OSPF3)
    assert [d.name for d in lab.topology.devices] == ["r1", "r2", "r3"]
    assert lab.topology.peer("r3", "eth2") == ("r1", "eth2")
    r1 = {i.name: str(i.address) for i in lab.topology.device("r1").interfaces}
    # eth3 leads to pc1, a host that is not run: the router keeps no interface for it
    assert r1 == {"lo": "10.255.0.1/32", "eth1": "10.0.12.1/30", "eth2": "10.0.13.1/30"}
    assert lab.topology.device("r1").data["loopback"] == "10.255.0.1"
    assert "router ospf" in lab.startup_configs["r2"]
    assert lab.not_run == {"pc1": "a Linux host (kind linux), not a network device"}
    assert not_run_line(lab.not_run) == (
        "Not run here (hosts, not FRR routers): pc1 (a Linux host (kind linux), not a network "
        "device)"
    )


UNKNOWN_NODE = (
    "name: x\ntopology:\n  nodes: {r1: {kind: frr}}\n  links:\n"
    '    - endpoints: ["r1:eth1", "r9:eth1"]\n'
)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("name: x\ntopology: [r1]\n", "expected a mapping with `name` and a `topology` mapping"),
        ("name: x\ntopology:\n  nodes: {r1: {kind: linux, image: frr\n", "is not valid YAML"),
        (UNKNOWN_NODE, "link endpoint 'r9:eth1': no node 'r9' in topology.nodes"),
        (
            "name: x\ntopology:\n  nodes: {r1: {kind: frr, startup-config: gone.conf}}\n",
            "cannot read",
        ),
    ],
)
def test_an_unusable_file_is_refused_with_the_reason(tmp_path: Path, text: str, says: str) -> None:
    path = tmp_path / "bad.clab.yml"
    path.write_text(text)
    with pytest.raises(TopologyError, match=r"bad\.clab\.yml") as raised:
        load_clab_topology(path)
    assert says in str(raised.value)
    assert "\n" not in str(raised.value)


def full_neighbours(lab: FrrLab, router: str) -> set[str]:
    neighbours = json.loads(lab.vtysh(router, "show ip ospf neighbor json"))["neighbors"]
    return {
        router_id
        for router_id, entries in neighbours.items()
        if any(entry["nbrState"].startswith("Full") for entry in entries)
    }


def routes_after_spf(lab: FrrLab, router: str, awaited: set[str]) -> set[str]:
    """`router`'s OSPF routes once `awaited` are among them, or at CONVERGE_SECONDS (an
    adjacency is Full a moment before the SPF run that installs its routes)."""
    deadline = time.monotonic() + CONVERGE_SECONDS
    while True:
        routes = set(json.loads(lab.vtysh(router, "show ip route ospf json")))
        if awaited <= routes or time.monotonic() > deadline:
            return routes
        time.sleep(0.2)


def converged(lab: FrrLab, expected: dict[str, set[str]]) -> bool:
    deadline = time.monotonic() + CONVERGE_SECONDS
    while {router: full_neighbours(lab, router) for router in expected} != expected:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.5)
    return True


@pytest.mark.frr
@pytest.mark.usefixtures("frr_host")
def test_the_file_s_routers_run_their_startup_configs_and_ospf_converges() -> None:
    with FrrLab.run(OSPF3) as lab:
        assert lab.routers == ["r1", "r2", "r3"]
        assert "pc1" in lab.not_run
        expected = {
            "r1": {"10.255.0.2", "10.255.0.3"},
            "r2": {"10.255.0.1", "10.255.0.3"},
            "r3": {"10.255.0.1", "10.255.0.2"},
        }
        assert converged(lab, expected), {r: full_neighbours(lab, r) for r in expected}
        learned = {"10.255.0.2/32", "10.255.0.3/32", "10.0.23.0/30"}
        assert learned <= routes_after_spf(lab, "r1", learned)


@pytest.mark.frr
@pytest.mark.usefixtures("frr_host")
def test_labbot_lab_names_an_unknown_endpoint_node_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.clab.yml"
    path.write_text(UNKNOWN_NODE)
    done = subprocess.run(
        [LABBOT, "lab", "--frr", str(path)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"labbot: containerlab topology {path}: link endpoint 'r9:eth1': no node 'r9' in "
        "topology.nodes"
    ]
