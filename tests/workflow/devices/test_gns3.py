"""GNS3Inventory against real gns3-server 2.2 (REST v2, no auth) and 3.0 (REST v3, token)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from functools import partial
from typing import Any

import pytest

from base.errors import InventoryError
from labsim.device import SimDevice
from labsim.transport import TelnetConsole, listen
from tests.workflow.devices.gns3server import PASSWORD, GNS3Server, running_gns3
from tests.workflow.devices.rig import SECRET, Stores
from workflow.devices.inventories.gns3 import GNS3Inventory, nodes_to_devices
from workflow.model import Device, Link

pytestmark = [pytest.mark.gns3, pytest.mark.xdist_group("gns3")]  # each server starts once


@dataclass
class Lab:
    server: GNS3Server
    project_id: str
    nodes: dict[str, dict[str, Any]]


@pytest.fixture(scope="module", params=["v2", "v3"])
def gns3_lab(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Lab]:
    home = tmp_path_factory.mktemp(f"gns3{request.param}")
    with running_gns3(request.param, home) as server:
        project = server.call("POST", "/projects", {"name": "ospf-lab"})
        server.call("POST", "/projects", {"name": "other-lab"})
        pid = project["project_id"]
        nodes = {
            "R1": server.qemu_node(pid, "R1", "vios"),
            "R2": server.qemu_node(pid, "R2", "vios"),
            "SW1": server.qemu_node(pid, "SW1", "veos"),
            "srv": server.qemu_node(pid, "srv", "ubuntu"),
            "PC1": server.call(
                "POST",
                f"/projects/{pid}/nodes",
                {"name": "PC1", "node_type": "vpcs", "compute_id": "local"},
            ),
        }
        server.link(pid, nodes["R1"], 0, nodes["R2"], 0)
        server.link(pid, nodes["R1"], 1, nodes["SW1"], 1)
        yield Lab(server, pid, nodes)


def inventory(lab: Lab, **overrides: Any) -> GNS3Inventory:
    options: dict[str, Any] = {
        "project": "ospf-lab",
        "user": lab.server.user,
        "password": lab.server.password,
    }
    return GNS3Inventory(lab.server.url, **(options | overrides))


async def test_devices_links_and_unusable_nodes(gns3_lab: Lab) -> None:
    devices, links, unusable = await inventory(gns3_lab).load()
    ports = {name: node["console"] for name, node in gns3_lab.nodes.items()}
    assert sorted(devices, key=lambda d: d.name) == [
        Device("R1", "cisco_ios_telnet", "127.0.0.1", ports["R1"], gns3_lab.nodes["R1"]["node_id"]),
        Device("R2", "cisco_ios_telnet", "127.0.0.1", ports["R2"], gns3_lab.nodes["R2"]["node_id"]),
        Device(
            "SW1", "arista_eos_telnet", "127.0.0.1", ports["SW1"], gns3_lab.nodes["SW1"]["node_id"]
        ),
    ]
    assert sorted(links, key=lambda link: link["b_device"]) == [
        Link(a_device="R1", a_interface="Ethernet0", b_device="R2", b_interface="Ethernet0"),
        Link(a_device="R1", a_interface="Ethernet1", b_device="SW1", b_interface="Ethernet1"),
    ]
    reasons = {node.name: node.reason for node in unusable}
    assert set(reasons) == {"PC1", "srv"}
    assert "VPCS" in reasons["PC1"]
    assert "LABBOT_DEVICE_TYPES" in reasons["srv"]


async def test_rules_name_a_node_heuristics_cannot(gns3_lab: Lab) -> None:
    devices, _, unusable = await inventory(
        gns3_lab, device_types={"srv": "cisco_ios_telnet"}
    ).load()
    assert "srv" in {device.name for device in devices}
    assert [node.name for node in unusable] == ["PC1"]


async def test_project_by_id_and_a_closed_project_is_opened(gns3_lab: Lab) -> None:
    gns3_lab.server.call("POST", f"/projects/{gns3_lab.project_id}/close")
    devices, links, _ = await inventory(gns3_lab, project=gns3_lab.project_id).load()
    assert {device.name for device in devices} == {"R1", "R2", "SW1"}
    assert all(device.host == "127.0.0.1" for device in devices)
    assert (
        Link(a_device="R1", a_interface="Ethernet0", b_device="R2", b_interface="Ethernet0")
        in links
    )


async def test_unknown_project_lists_the_available_ones(gns3_lab: Lab) -> None:
    with pytest.raises(InventoryError) as caught:
        await inventory(gns3_lab, project="nope").load()
    message = str(caught.value)
    assert "no project 'nope'" in message
    assert "'ospf-lab'" in message and "'other-lab'" in message
    assert "GNS3_PROJECT" in message


def test_unspecified_console_host_means_the_server_host() -> None:
    nodes = [
        {
            "name": "R1",
            "node_id": "n1",
            "node_type": "dynamips",
            "console": 5000,
            "console_host": "0.0.0.0",
            "console_type": "telnet",
        },
        {
            "name": "R2",
            "node_id": "n2",
            "node_type": "dynamips",
            "console": 5001,
            "console_host": "::",
            "console_type": "telnet",
        },
        {
            "name": "R3",
            "node_id": "n3",
            "node_type": "dynamips",
            "console": 5002,
            "console_host": "10.1.1.1",
            "console_type": "telnet",
        },
        {
            "name": "R4",
            "node_id": "n4",
            "node_type": "dynamips",
            "console": None,
            "console_type": "telnet",
        },
    ]
    devices, unusable = nodes_to_devices(nodes, {}, {}, "gns3.lab.example")
    assert [(d.name, d.host, d.port) for d in devices] == [
        ("R1", "gns3.lab.example", 5000),
        ("R2", "gns3.lab.example", 5001),
        ("R3", "10.1.1.1", 5002),
    ]
    assert unusable[0].name == "R4" and "no console port" in unusable[0].reason


async def test_server_down_is_one_clear_line() -> None:
    with pytest.raises(InventoryError, match=r"not reachable.*check GNS3_URL"):
        await GNS3Inventory("http://127.0.0.1:9", project="x").load()


@pytest.mark.parametrize("gns3_lab", ["v3"], indirect=True)
async def test_v3_bad_or_missing_credentials(gns3_lab: Lab) -> None:
    with pytest.raises(InventoryError, match=r"refused user 'admin'.*GNS3_PASSWORD") as caught:
        await inventory(gns3_lab, password="wrong").load()
    assert PASSWORD not in str(caught.value)
    with pytest.raises(InventoryError, match="needs a login: set GNS3_USER and GNS3_PASSWORD"):
        await inventory(gns3_lab, user=None, password=None).load()


@asynccontextmanager
async def consoles_on(ports: dict[str, tuple[str, int]]) -> AsyncIterator[dict[str, SimDevice]]:
    """Simulated devices answering on the console ports GNS3 allocated, like started nodes.

    `labsim.Lab` picks its own ports, so its telnet front end is used directly here.
    """
    live: set[asyncio.BaseTransport] = set()
    sims = {
        name: SimDevice.from_running_config(name, platform, f"hostname {name}\n")
        for name, (platform, _) in ports.items()
    }
    servers = [
        await listen(partial(TelnetConsole, sims[name], SECRET, live), "127.0.0.1", port)
        for name, (_, port) in ports.items()
    ]
    try:
        yield sims
    finally:
        for server in servers:
            server.close()
        for transport in list(live):
            transport.close()
        await asyncio.gather(*(server.wait_closed() for server in servers))


async def test_push_through_gns3_consoles(gns3_lab: Lab, stores: Stores) -> None:
    ports = {
        name: (platform, gns3_lab.nodes[name]["console"])
        for name, platform in (("R1", "cisco_ios"), ("SW1", "arista_eos"))
    }
    gateway = stores.gateway(inventory(gns3_lab))
    plan = {
        "R1": ["router ospf 1", " network 10.0.0.0 0.255.255.255 area 0"],
        "SW1": ["router ospf 1", "   router-id 10.255.255.1"],
    }
    async with consoles_on(ports) as sims:
        response = await gateway.push(f"gns3-{gns3_lab.server.api}", plan)
        assert response["success"], response
        assert "network 10.0.0.0 0.255.255.255 area 0" in sims["R1"].running_config()
        assert "router-id 10.255.255.1" in sims["SW1"].running_config()
    # R2 has no console listening (a stopped node): it fails alone
    response = await gateway.push("gns3-stopped", {"R2": plan["R1"]})
    assert "connection refused" in response["data"][0]["error"]
