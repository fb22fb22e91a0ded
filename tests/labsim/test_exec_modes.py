"""User and privileged EXEC like a real IOS/EOS login: what `R1>` refuses, how `enable` asks for
the secret, and where telnet consoles and SSH logins land (netmiko sessions on 127.0.0.1)."""

from __future__ import annotations

import asyncio

import pytest
from netmiko import ConnectHandler

from labsim import Lab, SimDevice, demo_topology
from labsim.cli import CliSession

CARET = "% Invalid input detected at '^' marker."


def session(name: str = "R1", *, secret: str = "s3cret") -> CliSession:
    device = SimDevice.from_spec(demo_topology(2, switch=True).device(name), {})
    return CliSession(device, privileged=False, secret=secret)


@pytest.mark.parametrize("command", ["show running-config", "show run", "sh startup-config"])
def test_user_exec_refuses_the_configuration_like_ios(command: str) -> None:
    cli = session()
    reply = cli.feed_line(command)
    lines = reply.splitlines()
    assert lines[-2] == CARET and lines[-1] == "R1>"
    marker = lines[1]
    assert marker.index("^") == len("R1>") + command.index(" ") + 1  # under the refused word
    assert "hostname" not in reply


def test_user_exec_still_shows_what_ios_shows_there() -> None:
    cli = session()
    assert "GigabitEthernet0/0" in cli.feed_line("show ip interface brief")
    assert CARET in cli.feed_line("configure terminal")


def test_enable_asks_the_secret_and_refuses_a_wrong_one() -> None:
    cli = session()
    assert cli.feed_line("enable").endswith("Password: ")
    assert cli.feed_line("wrong").endswith("% Access denied\nR1>")
    cli.feed_line("enable")
    assert cli.feed_line("s3cret").endswith("R1#")
    assert "hostname R1" in cli.feed_line("show running-config")


def test_enable_without_a_secret_asks_nothing() -> None:
    cli = session(secret="")
    assert cli.feed_line("enable").endswith("R1#")


def test_eos_user_exec_refuses_the_configuration_too() -> None:
    cli = session("SW1")
    assert cli.feed_line("show running-config").endswith("% Invalid input\nSW1>")


async def test_consoles_at_user_exec_and_privilege_15_logins() -> None:
    async with Lab.start(
        1, username="u", password="p", secret="s", console_exec="user", privilege=15
    ) as lab:
        device = lab.device("R1")

        def prompts() -> tuple[str, str]:
            console = ConnectHandler(
                device_type="cisco_ios_telnet", host=lab.host, port=device.telnet_port
            )
            ssh = ConnectHandler(
                device_type="cisco_ios",
                host=lab.host,
                port=device.ssh_port,
                username="u",
                password="p",
            )
            found = console.find_prompt(), ssh.find_prompt()
            console.disconnect()
            ssh.disconnect()
            return found

        assert await asyncio.to_thread(prompts) == ("R1>", "R1#")
