"""Real netmiko sessions (telnet console and SSH) against the lab on 127.0.0.1.

netmiko's telnet login sleeps ~1 s per connection, so sessions are opened once per module.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from netmiko import BaseConnection, ConnectHandler
from netmiko.exceptions import NetmikoAuthenticationException

from labsim import DEMO_TOPOLOGY_FILE, Lab, LabThread

CREDENTIALS = {"username": "admin", "password": "admin", "secret": "enable"}


@pytest.fixture(scope="module")
def lab() -> Iterator[Lab]:
    with LabThread(DEMO_TOPOLOGY_FILE) as running:
        yield running


def connect(lab: Lab, name: str, transport: str) -> BaseConnection:
    device = lab.device(name)
    if transport == "telnet":
        kind, port = f"{device.platform}_telnet", device.telnet_port
    else:
        kind, port = device.platform, device.ssh_port
    return ConnectHandler(device_type=kind, host=lab.host, port=port, **CREDENTIALS)


@pytest.fixture(scope="module", params=["telnet", "ssh"])
def ios(request: pytest.FixtureRequest, lab: Lab) -> Iterator[BaseConnection]:
    """R1 over its telnet console, R2 over SSH, already in enable mode.

    Each test stands alone: under xdist a worker may get any one of them first.
    """
    name = "R1" if request.param == "telnet" else "R2"
    conn = connect(lab, name, request.param)
    conn.enable()
    yield conn
    conn.disconnect()


def test_enable_and_show(ios: BaseConnection) -> None:
    assert ios.check_enable_mode()
    assert ios.find_prompt() in ("R1#", "R2#")
    brief = ios.send_command("show ip interface brief")
    assert "Loopback0" in brief and "GigabitEthernet0/0" in brief
    assert "IOSv" in ios.send_command("show version")


def test_config_set_changes_running_config(ios: BaseConnection, lab: Lab) -> None:
    output = ios.send_config_set(
        [
            "interface Loopback10",
            "description netmiko test",
            "ip address 172.16.10.1 255.255.255.255",
            "router ospf 10",
            "network 172.16.10.1 0.0.0.0 area 0",
        ]
    )
    assert "(config-router)#" in output and "Invalid" not in output
    section = str(ios.send_command("show running-config | section ospf 10"))
    assert section.splitlines() == ["router ospf 10", " network 172.16.10.1 0.0.0.0 area 0"]
    name = ios.base_prompt
    assert "interface Loopback10\n description netmiko test" in lab.device(name).running_config()
    ios.send_config_set(["no router ospf 10", "no interface Loopback10"])
    run = ios.send_command("show running-config")
    assert "ospf 10" not in run and "Loopback10" not in run


def test_invalid_input_and_save(ios: BaseConnection, lab: Lab) -> None:
    output = ios.send_config_set(["flurble the widget"])
    assert "% Invalid input detected at '^' marker." in output
    ios.send_config_set(["ntp server 192.0.2.7"])
    assert "[OK]" in ios.save_config()
    assert "ntp server 192.0.2.7" in lab.device(ios.base_prompt).startup_config()


def test_banner_over_netmiko(ios: BaseConnection, lab: Lab) -> None:
    # netmiko sends banners without echo checks and reads until 2 s of silence
    ios.send_config_set(["banner motd ^", "Lab device", "do not touch", "^"])
    assert "banner motd ^C\nLab device\ndo not touch\n^C" in ios.send_command("show run")


@pytest.mark.parametrize("transport", ["telnet", "ssh"])
def test_arista_over_netmiko(lab: Lab, transport: str) -> None:
    conn = connect(lab, "SW1", transport)
    try:
        conn.enable()
        assert conn.find_prompt() == "SW1#"
        output = conn.send_config_set([f"vlan 4{len(transport)}", "name from-netmiko"])
        assert "SW1(config-vlan-4" in output
        conn.send_config_set(["interface Ethernet3", "no switchport", "ip address 10.3.0.1/24"])
        assert f"vlan 4{len(transport)}\n   name from-netmiko" in conn.send_command("show run")
        assert "10.3.0.1/24" in conn.send_command("show ip interface brief")
        assert "Copy completed successfully." in conn.save_config()
    finally:
        conn.disconnect()


def test_wrong_ssh_password_is_refused(lab: Lab) -> None:
    with pytest.raises(NetmikoAuthenticationException):
        ConnectHandler(
            device_type="cisco_ios",
            host=lab.host,
            port=lab.device("R3").ssh_port,
            username="admin",
            password="wrong",
        )
