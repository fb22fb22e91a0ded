"""The lab's twin from each inventory source labbot reads FRR labs from: a deployed containerlab
lab (`clab-NAME/`, its links in topology-data.json, the routers reached over SSH at their
management addresses, their interface addresses only in the kernel) and a GNS3 project whose
nodes are FRR (its links from the GNS3 REST API, the routers reached on the console ports GNS3
gave the nodes). The twin is built from the source's links and the routers' running configs
and interfaces as read, answers at the gate, and leaves nothing behind."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.cli.demo import demo_settings
from bot.runtime.wiring import open_runtime
from bot.settings import load_settings
from frrlab import FrrLab, generated_topology
from tests.bot.chat import RecordingAdapter, ask, click
from tests.frrlab.deployed_clab import write_deployed_lab
from tests.frrlab.test_lab_twin import params_gate_text, twin_leftovers
from tests.workflow.devices.gns3server import GNS3Server, running_gns3
from workflow.devices.inventories.gns3 import GNS3Inventory

pytestmark = [
    pytest.mark.frr,
    pytest.mark.usefixtures("frr_host"),
    pytest.mark.xdist_group("frr-lab"),
]

OSPF = "configure ospf on all routers fast=true"
FRR_IMAGE = "frr-10.5.1.qcow2"  # a qemu FRR appliance's disk: GNS3 tells the node by it


async def test_a_deployed_containerlab_lab_has_its_twin_at_the_gate(tmp_path: Path) -> None:
    chat = RecordingAdapter()
    topology = generated_topology(3)
    async with FrrLab.start(topology, management=True, kernel_addresses=True) as lab:
        directory = write_deployed_lab(lab, tmp_path, "frr3")
        settings = demo_settings(load_settings(data_dir=tmp_path / "bot", inventory=directory))
        async with open_runtime(settings, chat) as bot:
            before = {r: lab.vtysh(r, "show running-config") for r in lab.routers}
            await bot.service.handle(ask(OSPF, "alice"))
            await bot.service.handle(click(chat, "bob"))
            shown = params_gate_text(chat)
            after = {r: lab.vtysh(r, "show running-config") for r in lab.routers}
    # the links of topology-data.json; the addresses learned from each router's kernel
    assert "🧪 On a twin of the lab (3 routers, " in shown, shown
    assert "OSPF Full on R1–R2, R2–R3; R1 learns R2's loopback" in shown, shown
    assert after == before
    assert twin_leftovers() == []


@pytest.mark.gns3
async def test_a_gns3_project_of_frr_nodes_has_its_twin_at_the_gate(tmp_path: Path) -> None:
    """Three qemu nodes of an FRR appliance (telnet consoles; GNS3 names their ports
    Ethernet0.., FRR eth0..) linked R1–R2–R3 in GNS3; the routers behind their consoles are
    real FRR routers, started on the very ports GNS3 gave the nodes (the nodes themselves are
    never started: no qemu here)."""
    chat = RecordingAdapter()
    with running_gns3("v2", tmp_path / "gns3") as server:
        (tmp_path / "gns3" / "images" / "QEMU" / FRR_IMAGE).write_bytes(b"\0" * 512)
        project = server.call("POST", "/projects", {"name": "frr-lab"})["project_id"]
        nodes = {name: frr_node(server, project, name) for name in ("R1", "R2", "R3")}
        server.link(project, nodes["R1"], 0, nodes["R2"], 0)
        server.link(project, nodes["R2"], 1, nodes["R3"], 0)
        ports = {name: int(node["console"]) for name, node in nodes.items()}
        inventory = GNS3Inventory(server.url, project="frr-lab")
        devices, links, unusable = await inventory.load()
        async with FrrLab.start(generated_topology(3), console_ports=ports) as lab:
            settings = demo_settings(load_settings(data_dir=tmp_path / "bot"))
            async with open_runtime(settings, chat, inventory=inventory) as bot:
                await bot.service.handle(ask(OSPF, "alice"))
                await bot.service.handle(click(chat, "bob"))
                shown = params_gate_text(chat)
                untouched = "router ospf" not in lab.vtysh("R2", "show running-config")
    assert {(d.name, d.platform, d.port) for d in devices} == {
        (name, "frr_telnet", port) for name, port in ports.items()
    }
    assert unusable == []
    assert [(k["a_device"], k["a_interface"], k["b_device"], k["b_interface"]) for k in links] == [
        ("R1", "Ethernet0", "R2", "Ethernet0"),
        ("R2", "Ethernet1", "R3", "Ethernet0"),
    ]  # GNS3's names for the ports of a qemu node: the twin links its routers' eth0, eth1
    assert "🧪 On a twin of the lab (3 routers, " in shown, shown
    assert "OSPF Full on R1–R2, R2–R3; R1 learns R2's loopback" in shown, shown
    assert untouched
    assert twin_leftovers() == []


def frr_node(server: GNS3Server, project: str, name: str) -> dict[str, Any]:
    properties = {
        "hda_disk_image": FRR_IMAGE,
        "adapters": 2,
        "platform": "x86_64",
    }
    body = {"name": name, "node_type": "qemu", "compute_id": "local", "console_type": "telnet"}
    return dict(
        server.call("POST", f"/projects/{project}/nodes", body | {"properties": properties})
    )


@pytest.mark.gns3
async def test_a_gns3_project_with_a_router_that_is_not_frr_says_why_there_is_no_twin(
    tmp_path: Path,
) -> None:
    chat = RecordingAdapter()
    with running_gns3("v2", tmp_path / "gns3") as server:
        (tmp_path / "gns3" / "images" / "QEMU" / FRR_IMAGE).write_bytes(b"\0" * 512)
        project = server.call("POST", "/projects", {"name": "mixed-lab"})["project_id"]
        nodes = {name: frr_node(server, project, name) for name in ("R1", "R2")}
        nodes["R3"] = server.qemu_node(project, "R3", "vios")  # IOSv: no twin can run it
        server.link(project, nodes["R1"], 0, nodes["R2"], 0)
        server.link(project, nodes["R2"], 1, nodes["R3"], 0)
        ports = {name: int(nodes[name]["console"]) for name in ("R1", "R2")}
        inventory = GNS3Inventory(server.url, project="mixed-lab")
        async with FrrLab.start(generated_topology(2), console_ports=ports):
            settings = demo_settings(load_settings(data_dir=tmp_path / "bot"))
            async with open_runtime(settings, chat, inventory=inventory) as bot:
                await bot.service.handle(ask("configure ospf on R1, R2 fast=true", "alice"))
                await bot.service.handle(click(chat, "bob"))
                shown = params_gate_text(chat)
    said = "ℹ️ No twin of the lab for this change: a twin runs FRR routers only, and R3"
    assert f"{said} (cisco_ios_telnet) are not." in shown, shown
    assert "on the lab's twin" not in shown
    assert twin_leftovers() == []
