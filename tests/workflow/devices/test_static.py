"""Static inventory: a Nornir SimpleInventory hosts file, with clear errors naming file and host."""

from __future__ import annotations

from pathlib import Path

import pytest

from base.errors import InventoryError
from workflow.devices.inventories.static import StaticInventory
from workflow.model import Device, Link, UnusableNode

HOSTS = """
R1:
  hostname: 127.0.0.1
  port: 2001
  platform: cisco_ios_telnet
  password: from-the-file
  data:
    links:
      - {interface: GigabitEthernet0/0, peer: R2, peer_interface: GigabitEthernet0/0}
R2:
  hostname: 127.0.0.1
  port: 2002
  groups: [routers]
  data:
    links:
      - {interface: GigabitEthernet0/0, peer: R1, peer_interface: GigabitEthernet0/0}
SW1:
  hostname: 10.0.0.9
  platform: eos
SRV:
  hostname: 127.0.0.1
"""


async def test_hosts_groups_links_and_unusable(tmp_path: Path) -> None:
    (tmp_path / "hosts.yaml").write_text(HOSTS)
    (tmp_path / "groups.yaml").write_text("routers:\n  platform: cisco_ios\n")
    devices, links, unusable = await StaticInventory(tmp_path / "hosts.yaml").load()
    assert devices == [
        Device("R1", "cisco_ios_telnet", "127.0.0.1", 2001, password="from-the-file"),
        Device(  # platform inherited from its group, its kind from the group's name
            "R2",
            "cisco_ios",
            "127.0.0.1",
            2002,
            kind="router",
            kind_source="group",
            kind_detail="routers",
        ),
        Device("SW1", "arista_eos", "10.0.0.9", 22),  # napalm name mapped, SSH default port
    ]
    assert links == [
        Link(
            a_device="R1",
            a_interface="GigabitEthernet0/0",
            b_device="R2",
            b_interface="GigabitEthernet0/0",
        )
    ]
    assert len(unusable) == 1
    assert unusable[0].name == "SRV"
    assert "hosts.yaml line 20: host SRV has no platform" in unusable[0].reason


async def test_credentials_resolve_host_then_group_then_defaults(tmp_path: Path) -> None:
    (tmp_path / "hosts.yaml").write_text(
        "R1: {hostname: h1, platform: cisco_ios, username: alice,"
        " connection_options: {netmiko: {extras: {secret: host-secret}}}}\n"
        "R2: {hostname: h2, platform: cisco_ios, groups: [core]}\n"
        "R3: {hostname: h3, platform: cisco_ios}\n"
    )
    (tmp_path / "groups.yaml").write_text(
        "core: {password: group-pass, connection_options: {netmiko: {extras: {secret: grp}}}}\n"
    )
    (tmp_path / "defaults.yaml").write_text("username: netops\npassword: default-pass\n")
    devices, _, _ = await StaticInventory(tmp_path / "hosts.yaml").load()
    logins = {d.name: (d.username, d.password, d.secret) for d in devices}
    assert logins == {
        "R1": ("alice", "default-pass", "host-secret"),
        "R2": ("netops", "group-pass", "grp"),
        "R3": ("netops", "default-pass", None),  # the settings give the secret
    }
    assert "default-pass" not in repr(devices) and "grp" not in repr(devices)


async def test_rules_override_the_file(tmp_path: Path) -> None:
    (tmp_path / "hosts.yaml").write_text(HOSTS)
    (tmp_path / "groups.yaml").write_text("routers: {}\n")
    rules = {"S*": "arista_eos_telnet"}
    devices, _, unusable = await StaticInventory(tmp_path / "hosts.yaml", rules).load()
    by_name = {device.name: device for device in devices}
    assert by_name["SRV"].platform == "arista_eos_telnet"
    assert by_name["SRV"].port == 23  # telnet default port
    assert by_name["SW1"].platform == "arista_eos_telnet"
    assert [node.name for node in unusable] == ["R2"]
    assert isinstance(unusable[0], UnusableNode)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("R1: [not, a, mapping]\n", "line 1: host R1 must be a mapping"),
        ("- R1\n- R2\n", "hosts must be a mapping of device names to their settings (found a"),
        ("R1:\n  groups: [nosuchgroup]\n  platform: cisco_ios\n", "not a valid Nornir"),
        (
            "R1: {hostname: 127.0.0.1, platform: cisco_ios, data: {links: [x]}}\n",
            "host R1: data.links",
        ),
        ("R1: {platform: cisco_ios}\n", "line 1: host R1 has no hostname"),
        ("R1: {hostname: 10.0.0.1}\nR2: {hostname: [unclosed\n", "line 3: not YAML"),
    ],
)
async def test_bad_file_names_file_and_problem(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "hosts.yaml"
    path.write_text(content)
    with pytest.raises(InventoryError) as caught:
        await StaticInventory(path).load()
    assert str(path) in str(caught.value) and "\n" not in str(caught.value)
    assert message in str(caught.value)


async def test_missing_file_names_the_setting(tmp_path: Path) -> None:
    with pytest.raises(InventoryError, match="LABBOT_INVENTORY: no such file"):
        await StaticInventory(tmp_path / "nope.yaml").load()


async def test_an_edited_file_is_read_again(tmp_path: Path) -> None:
    # the parse is kept between loads; a changed host, group or default must not be missed
    (tmp_path / "hosts.yaml").write_text(HOSTS)
    (tmp_path / "groups.yaml").write_text("routers: {platform: cisco_ios}\n")
    inventory = StaticInventory(tmp_path / "hosts.yaml")
    devices, _, _ = await inventory.load()
    assert {d.name: d.port for d in devices}["R1"] == 2001
    (tmp_path / "hosts.yaml").write_text(HOSTS.replace("port: 2001", "port: 2009"))
    devices, _, _ = await inventory.load()
    assert {d.name: d.port for d in devices}["R1"] == 2009
    (tmp_path / "groups.yaml").write_text("routers: {platform: arista_eos}\n")
    devices, _, _ = await inventory.load()
    assert {d.name: d.platform for d in devices}["R2"] == "arista_eos"
    devices.clear()  # what a caller does with its lists is its own
    assert len((await inventory.load())[0]) == 3
