"""Faults other people's tests rely on: refuse, hang, drop_after, reject."""

from __future__ import annotations

import asyncio
import socket
from contextlib import AbstractAsyncContextManager

import pytest
from netmiko import ConnectHandler
from netmiko.exceptions import NetmikoTimeoutException

from labsim import Lab, demo_topology

CREDENTIALS = {"username": "admin", "password": "admin", "secret": "enable"}


def faulty_lab() -> AbstractAsyncContextManager[Lab]:
    return Lab.start(
        demo_topology(4, switch=False),
        faults={"R1": "refuse", "R2": "hang", "R3": {"drop_after": 2}},
        reject={"R4": [r"^ntp server 192\.0\.2\.66$"]},
    )


async def test_refused_device_has_a_port_nobody_listens_on() -> None:
    async with faulty_lab() as lab:
        device = lab.device("R1")
        for port in (device.telnet_port, device.ssh_port):
            assert port is not None
            with pytest.raises(ConnectionRefusedError):
                await asyncio.open_connection(lab.host, port)
        assert lab.nornir_hosts()["R1"]["port"] == device.telnet_port


async def test_hanging_device_accepts_and_never_answers() -> None:
    async with faulty_lab() as lab:
        device = lab.device("R2")
        for port in (device.telnet_port, device.ssh_port):
            reader, writer = await asyncio.open_connection(lab.host, port)
            writer.write(b"\r\nshow version\r\n")
            with pytest.raises(TimeoutError):
                await asyncio.wait_for(reader.read(1), timeout=0.3)
            writer.close()

        def ssh_login() -> None:
            ConnectHandler(
                device_type="cisco_ios",
                host=lab.host,
                port=device.ssh_port,
                conn_timeout=1,
                banner_timeout=1,
                **CREDENTIALS,
            )

        with pytest.raises(NetmikoTimeoutException):
            await asyncio.to_thread(ssh_login)


async def test_drop_after_closes_the_session_midway() -> None:
    async with faulty_lab() as lab:
        device = lab.device("R3")

        def push() -> None:
            conn = ConnectHandler(
                device_type="cisco_ios_telnet", host=lab.host, port=device.telnet_port
            )
            lines = ["ntp server 192.0.2.1", "ntp server 192.0.2.2", "ntp server 192.0.2.3"]
            conn.send_config_set(lines, read_timeout=5)

        started = asyncio.get_running_loop().time()
        with pytest.raises(EOFError, match="telnet connection closed"):
            await asyncio.to_thread(push)
        assert asyncio.get_running_loop().time() - started < 4  # noticed, not timed out
        run = device.running_config()
        assert "ntp server 192.0.2.2" in run and "ntp server 192.0.2.3" not in run
        run = device.running_config()
        assert "ntp server 192.0.2.1" in run and "ntp server 192.0.2.3" not in run


async def test_rejected_line_answers_invalid_input_and_others_apply() -> None:
    async with faulty_lab() as lab:
        device = lab.device("R4")

        def push() -> str:
            conn = ConnectHandler(
                device_type="cisco_ios", host=lab.host, port=device.ssh_port, **CREDENTIALS
            )
            conn.enable()
            lines = ["ntp server 192.0.2.65", "ntp server 192.0.2.66", "ntp server 192.0.2.67"]
            output = conn.send_config_set(lines)
            conn.disconnect()
            return output

        output = await asyncio.to_thread(push)
        assert "% Invalid input detected at '^' marker." in output
        run = device.running_config()
        assert "192.0.2.65" in run and "192.0.2.67" in run and "192.0.2.66" not in run


async def test_faults_for_unknown_devices_are_refused() -> None:
    with pytest.raises(KeyError, match="R9"):
        async with Lab.start(demo_topology(1), faults={"R9": "hang"}):
            pass


def test_ports_are_closed_after_the_lab_stops() -> None:
    async def run() -> list[int]:
        async with Lab.start(demo_topology(1, switch=False)) as lab:
            device = lab.device("R1")
            return [p for p in (device.telnet_port, device.ssh_port) if p is not None]

    for port in asyncio.run(run()):
        with socket.socket() as sock, pytest.raises(ConnectionRefusedError):
            sock.connect(("127.0.0.1", port))
