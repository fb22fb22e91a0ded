"""A deployed containerlab lab as the inventory: its nodes by kind, their logins, its links; kinds
labbot cannot drive are listed with the reason. Fixtures as containerlab writes them (see
fixtures/clab-frr01/FIELDS.md)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from base.errors import InventoryError
from bot.runtime.wiring import make_inventory
from bot.settings import load_settings
from workflow.devices.inventories.containerlab import ContainerlabInventory, lab_directory

LAB = Path(__file__).with_name("fixtures") / "clab-frr01"


async def test_nodes_links_and_unusable_kinds() -> None:
    devices, links, unusable = await ContainerlabInventory(LAB).load()
    by_name = {device.name: device for device in devices}
    assert {name: d.platform for name, d in by_name.items()} == {
        "router1": "frr",
        "router2": "frr",
        "router3": "frr",
        "ceos1": "arista_eos",
    }
    assert (by_name["router2"].host, by_name["router2"].port) == ("172.20.20.3", 22)
    assert by_name["router1"].kind == "router" and by_name["router1"].username is None
    assert (by_name["ceos1"].username, by_name["ceos1"].password) == ("admin", "admin")
    ends = {
        (link["a_device"], link["a_interface"], link["b_device"], link["b_interface"])
        for link in links
    }
    # PC1's link leads to a host and router3's eth3 to nothing: neither is between devices
    assert ends == {
        ("router1", "eth1", "router2", "eth1"),
        ("router1", "eth2", "router3", "eth1"),
        ("router2", "eth2", "router3", "eth2"),
    }
    reasons = {node.name: node.reason for node in unusable}
    assert reasons["PC1"] == "a Linux host (kind linux), not a network device"
    assert reasons["sros1"] == "labbot cannot drive containerlab kind 'nokia_srsim'"


def test_a_topology_file_names_its_lab_directory(tmp_path: Path) -> None:
    topology = tmp_path / "frr01.clab.yml"
    topology.write_text("name: frr01\ntopology:\n  nodes: {}\n")
    assert lab_directory(topology) == tmp_path / "clab-frr01"
    assert lab_directory(LAB) == LAB
    assert lab_directory(tmp_path / "hosts.yaml") is None


async def test_an_undeployed_lab_is_one_clear_error(tmp_path: Path) -> None:
    shutil.copytree(LAB, tmp_path / "clab-frr01")
    (tmp_path / "clab-frr01" / "topology-data.json").unlink()
    with pytest.raises(InventoryError, match="is the lab deployed"):
        await ContainerlabInventory(tmp_path / "clab-frr01").load()


async def test_labbot_reads_a_containerlab_lab_named_by_labbot_inventory(tmp_path: Path) -> None:
    """LABBOT_INVENTORY naming the lab's topology file: the lab directory beside it is read."""
    shutil.copytree(LAB, tmp_path / "clab-frr01")
    topology = tmp_path / "frr01.clab.yml"
    topology.write_text("name: frr01\ntopology:\n  nodes: {}\n")
    settings = load_settings(data_dir=tmp_path, inventory=topology)
    devices, links, unusable = await make_inventory(settings).load()
    assert sorted(d.name for d in devices) == ["ceos1", "router1", "router2", "router3"]
    assert len(links) == 3 and {u.name for u in unusable} == {"PC1", "sros1"}


async def test_the_frr_kind_is_driven_over_ssh_with_its_default_login(tmp_path: Path) -> None:
    """containerlab's `frr` kind (nodes/frr/frr.go): admin/admin, vtysh as the login shell, when
    the generated inventory names no login for the node."""
    lab = tmp_path / "clab-frr01"
    shutil.copytree(LAB, lab)
    data = json.loads((lab / "topology-data.json").read_text())
    data["nodes"]["router9"] = dict(data["nodes"]["router1"], kind="frr", image="frr:10.4.0")
    (lab / "topology-data.json").write_text(json.dumps(data))
    devices, _, unusable = await ContainerlabInventory(lab).load()
    router9 = next(device for device in devices if device.name == "router9")
    assert (router9.platform, router9.port) == ("frr", 22)
    assert (router9.username, router9.password) == ("admin", "admin")
    assert "router9" not in {node.name for node in unusable}
