"""Platform `frr` over SSH: a login that lands in vtysh (sshd inside the router's namespaces,
`labbot lab --frr --ssh`). labbot reads, pushes and post-checks through it; nothing goes
through the consoles; the lab's login user is gone with the lab."""

from __future__ import annotations

import pwd
from pathlib import Path

import pytest
from netmiko import ConnectHandler

from frrlab import FrrLab, generated_topology, netns
from tests.bot.chat import RecordingAdapter, ask
from tests.frrlab.test_chat_changes import bot_on, change, eventually, full_neighbours

pytestmark = [
    pytest.mark.frr,
    pytest.mark.usefixtures("frr_host"),
    pytest.mark.xdist_group("frr-lab"),
]


async def test_labbot_reads_and_pushes_over_ssh_with_platform_frr(tmp_path: Path) -> None:
    chat = RecordingAdapter()
    async with FrrLab.start(generated_topology(2), ssh=True) as lab:
        async with bot_on(lab, tmp_path, chat, transport="ssh") as bot:
            await change(bot, chat, "configure ospf on all routers fast=true")
            assert await eventually(lambda: bool(full_neighbours(lab, "R1")))
            await bot.service.handle(ask("show ip ospf neighbor on r1", "carol"))
            running = lab.vtysh("R2", "show running-config")
        logins = {r: (lab.ssh_logins(r), lab.console_logins(r)) for r in lab.routers}
        user = lab.prefix
        assert pwd.getpwnam(user).pw_shell == "/bin/sh"
    assert "pushed: ✓ 2 ✗ 0 of 2" in chat.texts()[-2], chat.texts()
    checks = {block.title: block.text for block in chat.messages()[-2].blocks}
    assert sorted(checks) == ["✓ R1", "✓ R2"], checks
    assert "✓ OSPF neighbour 10.0.0.2 (R2 eth0) Full" in checks["✓ R1"], checks
    answer = "\n".join(block.text for block in chat.messages()[-1].blocks)
    assert "10.0.0.2   Full" in answer, answer  # R2, read over R1's SSH login
    assert "router ospf" in running and "network 10.255.0.2/32 area 0" in running
    # preview read + push with its post-checks + the read, all over SSH; no console was used
    assert logins == {"R1": (3, 0), "R2": (2, 0)}
    with pytest.raises(KeyError):
        pwd.getpwnam(user)
    assert netns.with_prefix(lab.prefix) == []


def test_the_ssh_login_lands_in_vtysh_and_cannot_run_a_shell() -> None:
    with FrrLab.run(generated_topology(1), ssh=True) as lab:
        assert lab.ssh_login is not None
        login = {"username": lab.ssh_login.username, "password": lab.ssh_login.password}
        connection = ConnectHandler(
            device_type="cisco_ios", host=lab.host, port=lab.ssh_ports["R1"].port, **login
        )
        try:
            prompt = connection.find_prompt()
            shell = connection.send_command("id", expect_string=r"R1#")
        finally:
            connection.disconnect()
    assert prompt == "R1#"
    assert "uid=" not in shell and "Unknown command" in shell
