"""Facts know VRFs: an interface in a VRF (IOS `vrf forwarding` / `ip vrf forwarding`, EOS `vrf`,
FRR `interface X vrf V` or its kernel VRF, Junos routing-instances, VRP vpn-instance) is told
apart, and a template for the global table (OSPF's networks, BGP's peers) does not take it."""

from __future__ import annotations

import json

import pytest

from labsim.trial import twin_run
from workflow.devices.facts import interfaces_from_config
from workflow.devices.interface_state import interfaces_from_state, merged
from workflow.library.derive import routing
from workflow.model import DeviceFacts, Topology

CONFIGS = [
    ("cisco_ios", "interface Gi0/0\n vrf forwarding MGMT\n ip address 192.0.2.1 255.255.255.0\n"),
    ("cisco_ios", "interface Gi0/0\n ip vrf forwarding MGMT\n ip address 192.0.2.1 255.0.0.0\n"),
    ("arista_eos", "interface Ethernet1\n   vrf MGMT\n   ip address 192.0.2.1/24\n"),
    ("frr", "interface eth0 vrf MGMT\n ip address 192.0.2.1/24\nexit\n"),
    ("huawei_vrp", "interface GigabitEthernet0/0/0\n ip binding vpn-instance MGMT\n"
     " ip address 192.0.2.1 255.255.255.0\n#\n"),
    ("juniper_junos", "set interfaces ge-0/0/0 unit 0 family inet address 192.0.2.1/24\n"
     "set routing-instances MGMT interface ge-0/0/0.0\n"),
]  # fmt: skip


@pytest.mark.parametrize(("platform", "config"), CONFIGS, ids=[p for p, _ in CONFIGS])
def test_an_interface_in_a_vrf_says_so(platform: str, config: str) -> None:
    [interface] = interfaces_from_config(config, platform)
    assert interface.get("vrf") == "MGMT" and interface["address"] in (
        "192.0.2.1/24",
        "192.0.2.1/8",
    )


def test_frr_s_kernel_vrf_counts_when_its_configuration_does_not_say_it() -> None:
    def shown(vrf: str, address: str) -> dict[str, object]:
        addresses = [{"address": address, "secondary": False}]
        return {"administrativeStatus": "up", "vrfName": vrf, "ipAddresses": addresses}

    state = {"eth0": shown("MGMT", "192.0.2.1/24"), "eth1": shown("default", "10.0.12.1/24")}
    configured = interfaces_from_config("interface eth0\nexit\ninterface eth1\nexit\n", "frr")
    found = merged(configured, interfaces_from_state("frr", json.dumps(state)))
    assert [(i["name"], i.get("vrf")) for i in found] == [("eth0", "MGMT"), ("eth1", None)]


def test_ospf_takes_only_the_global_table_s_interfaces_of_a_simulated_router() -> None:
    """A management VRF typed into a simulated IOS router: OSPF's networks leave it out."""
    lines = [
        "vrf definition MGMT",
        "interface GigabitEthernet0/0",
        " vrf forwarding MGMT",
        " ip address 192.0.2.1 255.255.255.0",
        "interface GigabitEthernet0/1",
        " ip address 10.0.12.1 255.255.255.0",
        "interface Loopback0",
        " ip address 10.255.0.1 255.255.255.255",
    ]
    run = twin_run("R1", "cisco_ios", "hostname R1\n", lines)
    assert run.refused == []
    interfaces = interfaces_from_config(run.after, "cisco_ios")
    facts = DeviceFacts(
        name="R1", platform="cisco_ios", family="cisco_ios", interfaces=interfaces,
        running_config=run.after,
    )  # fmt: skip
    topology = Topology(devices={"R1": facts}, links=[], unusable=[])
    params = routing(facts, topology, {})
    assert params["networks"] == ["10.0.12.0/24", "10.255.0.1/32"]
    assert "GigabitEthernet0/0" not in params["interfaces"]
