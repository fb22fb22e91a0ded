"""A deployed containerlab lab as labbot's inventory: the lab directory containerlab writes
(`clab-NAME/`: topology-data.json and the Nornir inventory), its management addresses pointed
at a real FRR lab whose routers answer SSH on port 22 of their own address with the frr kind's
admin/admin login landing in vtysh — as containerlab reaches its nodes. `labbot check` and `lab`
list its devices and links; "configure ospf on all routers" from chat reaches every router over
SSH and brings every adjacency Full, although neither the directory nor FRR's configs hold an
interface address (they are set with `ip addr`, learned from each router's state)."""

from __future__ import annotations

import pwd
import re
from pathlib import Path

import pytest
from netmiko import ConnectHandler

from base.containerlab_kinds import HOST_REASON
from bot.cli.demo import demo_settings
from bot.runtime.wiring import open_runtime
from bot.settings import load_settings
from frrlab import FrrLab, generated_topology
from frrlab.host import run
from tests.bot.chat import RecordingAdapter, ask
from tests.bot.test_check import labbot, marked
from tests.frrlab.deployed_clab import HOST, write_deployed_lab
from tests.frrlab.test_chat_changes import change, eventually, full_neighbours, post_check_results
from tests.frrlab.test_facts_from_state import neighbours

pytestmark = [
    pytest.mark.frr,
    pytest.mark.usefixtures("frr_host"),
    pytest.mark.xdist_group("frr-lab"),
]


async def test_a_deployed_containerlab_lab_is_listed_and_takes_ospf_over_ssh(
    tmp_path: Path,
) -> None:
    chat = RecordingAdapter()
    topology = generated_topology(3)
    async with FrrLab.start(topology, management=True, kernel_addresses=True) as lab:
        directory = write_deployed_lab(lab, tmp_path, "frr3")
        env = {"LABBOT_INVENTORY": str(directory), "LABBOT_DATA_DIR": str(tmp_path / "check")}
        status, checked, err = await labbot("check", cwd=tmp_path, env=env)
        settings = demo_settings(load_settings(data_dir=tmp_path / "bot", inventory=directory))
        async with open_runtime(settings, chat) as bot:
            await bot.service.handle(ask("lab", "carol"))
            listed = chat.messages()[-1]
            await change(bot, chat, "configure ospf on all routers with hello-interval 1")
            expected = neighbours(lab)
            assert await eventually(
                lambda: all(full_neighbours(lab, r) == n for r, n in expected.items())
            )
        logins = {r: (lab.ssh_logins(r), lab.console_logins(r)) for r in lab.routers}
        addresses = {router: lab.ssh_ports[router].host for router in lab.routers}
    assert status == 0, checked + err
    inventory = f"✓ inventory: {directory}: 3 device(s): R1, R2, R3"
    assert inventory in marked(checked, "✓"), checked
    assert "✓ links: 2 link(s) between the devices: R1 eth0 — R2 eth0, R2 eth1 — R3 eth0" in checked
    assert f"! inventory: {HOST}: {HOST_REASON}" in checked
    for router, address in addresses.items():
        device = f"✓ device {router}: {address}:22 (frr) answers; logged in, privileged, running"
        assert any(line.startswith(device) for line in marked(checked, "✓")), checked
    assert listed.text.startswith("The lab: 3 device(s), 3 answering now."), listed.text
    table, *sections = listed.blocks
    rows = {
        re.split(r"\s{2,}", row)[0]: re.split(r"\s{2,}", row)[1:] for row in table.text.splitlines()
    }
    for router, address in addresses.items():
        assert rows[router] == ["frr", "router", f"ssh {address}:22", "yes"], rows
    shown = {block.title: block.text for block in sections}
    links = shown["Links (the interface at each end)"]
    assert links.splitlines() == ["R1 eth0 — R2 eth0", "R2 eth1 — R3 eth0"]
    assert shown["Not used (the reason)"] == f"{HOST}: {HOST_REASON}"
    assert "pushed: ✓ 3 ✗ 0 of 3" in chat.texts()[-1], chat.texts()[-1]
    results = post_check_results(chat)
    assert sorted(results) == ["✓ R1", "✓ R2", "✓ R3"], results
    assert "✓ OSPF neighbour 10.0.0.1 (R1 eth0) Full" in results["✓ R2"], results["✓ R2"]
    # everything went over SSH at the management addresses; no console was used
    assert all(ssh > 0 and console == 0 for ssh, console in logins.values()), logins


def test_the_admin_login_lands_in_vtysh_at_port_22_of_the_router_s_own_address() -> None:
    """containerlab's frr kind: `admin`/`admin`, login shell vtysh; only the routers know the
    user (the host has no admin), and a wrong password is refused."""
    with FrrLab.run(generated_topology(2), management=True) as lab:
        r1, r2 = (lab.ssh_ports[router] for router in ("R1", "R2"))
        connection = ConnectHandler(
            device_type="cisco_ios", host=r1.host, port=22, username="admin", password="admin"
        )
        try:
            prompt = connection.find_prompt()
            shell = connection.send_command("id", expect_string=r"R1#")
        finally:
            connection.disconnect()
        with pytest.raises(Exception, match="Authentication"):
            ConnectHandler(
                device_type="cisco_ios", host=r2.host, port=22, username="admin", password="x"
            )
        inside = ["nsenter", "-t", str(lab.zebra_pids["R1"]), "-m", "cat", "/etc/shadow"]
        shadow = run(inside, what="reading R1's /etc/shadow")
    assert (r1.port, r2.port) == (22, 22) and r1.host != r2.host
    assert r1.host.startswith("127.") and r1.host.rsplit(".", 1)[0] == r2.host.rsplit(".", 1)[0]
    assert prompt == "R1#"
    assert "uid=" not in shell and "Unknown command" in shell
    # the routers' shadow holds admin alone: no password hash of the host's users is copied
    assert [line.partition(":")[0] for line in shadow.splitlines()] == ["admin"]
    with pytest.raises(KeyError):
        pwd.getpwnam("admin")
