"""The post-check engine on real FRR routers (frrlab): it waits for OSPF to converge and passes,
reports the evidence when a neighbour or a session never comes up, and reads over the consoles
through the gateway (privileged, errors refused)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.views.postcheck import item_body, progress_detail
from frrlab import FrrLab
from tests.workflow.devices.rig import Stores
from workflow.devices.gateway import NornirGateway
from workflow.devices.inventories.static import StaticInventory
from workflow.model import PushProgress, StandardResponse, Topology
from workflow.postcheck_spec import parse_post_checks
from workflow.postchecks.evaluate import expectations

# one worker runs the module (under xdist), so its lab starts once
pytestmark = [
    pytest.mark.frr,
    pytest.mark.usefixtures("frr_host"),
    pytest.mark.xdist_group("engine_frr"),
]

FAST_HELLOS = ["ip ospf hello-interval 1", "ip ospf dead-interval 4"]


@pytest.fixture(scope="module")
def lab() -> Iterator[FrrLab]:
    with FrrLab.run(None, prefix="realcli") as running:
        yield running


def _gateway(stores: Stores, path: Path) -> NornirGateway:
    """The consoles need no login (vtysh lands at `R1#`)."""
    return stores.gateway(StaticInventory(path), username=None, password=None, secret=None)


def _ospf(lab: FrrLab, router: str, interfaces: list[str]) -> None:
    lines = ["configure terminal"]
    for interface in interfaces:
        lines += [f"interface {interface}", *FAST_HELLOS, "exit"]
    lines += ["router ospf", "network 10.0.0.0/8 area 0", "end"]
    lab.vtysh(router, *lines)


async def _topology(gateway: NornirGateway) -> Topology:
    devices, links, _ = await gateway.devices()
    facts = await gateway.facts([d.name for d in devices])
    return Topology(devices=facts, links=list(links), unusable=[])


async def test_ospf_checks_wait_for_convergence_then_fail_with_evidence(
    lab: FrrLab, tmp_path: Path, stores: Stores
) -> None:
    gateway = _gateway(stores, lab.write_inventory(tmp_path / "hosts.yaml"))
    topology = await _topology(gateway)
    assert all("error" not in facts for facts in topology["devices"].values())
    checks, _ = parse_post_checks(["ospf_neighbors", "loopback_routes"])
    assert checks is not None
    params = {name: {} for name in ("R1", "R2", "R3")}
    expected = {n: expectations(checks["checks"], n, params, topology) for n in params}
    assert {e.key for e in expected["R2"]} == {
        "10.0.12.1",
        "10.0.23.2",
        "10.255.0.1/32",
        "10.255.0.3/32",
    }
    # OSPF everywhere but R3: R1 converges with R2; R2 and R3 never do
    _ospf(lab, "R1", ["eth0"])
    _ospf(lab, "R2", ["eth0", "eth1"])
    events: list[PushProgress] = []
    started = time.monotonic()
    result = await gateway.post_check(expected, 12, events.append)
    items = {item["name"]: item for item in result["data"]}
    assert items["R3"]["status"] == "failed"
    assert "OSPF neighbour 10.0.23.1 (R2 eth1): absent" in item_body(items["R3"])
    assert "route 10.255.0.1/32 (R1 lo): not in the routing table" in item_body(items["R3"])
    assert items["R2"]["status"] == "failed"
    assert "OSPF neighbour 10.0.23.2 (R3 eth0): absent" in item_body(items["R2"])
    assert time.monotonic() - started < 25
    # the same checks pass once R3 runs OSPF too: each device as soon as it has converged
    _ospf(lab, "R3", ["eth0"])
    events.clear()
    result = await gateway.post_check(expected, 60, events.append)
    assert result["success"], result
    assert "✓ OSPF neighbour 10.0.12.1 (R1 eth0) Full" in items_text(result, "R2")
    assert "✓ route 10.255.0.3/32 (R3 lo) installed" in items_text(result, "R1")
    assert {e.device for e in events if e.stage == "done"} == {"R1", "R2", "R3"}
    waiting = [progress_detail(e) for e in events if e.stage == "started"]
    assert any(
        said.startswith("post-checks waiting (") and " s of at most 60 s): " in said
        for said in waiting
    ), waiting


def items_text(result: StandardResponse, name: str) -> str:
    return item_body(next(item for item in result["data"] if item["name"] == name))
