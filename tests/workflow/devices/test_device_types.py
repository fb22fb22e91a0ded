"""Device-type resolution: rules first, then tags, then heuristics; unknown is reported."""

from __future__ import annotations

import pytest

from workflow.devices.inventories.device_types import NodeInfo, netmiko_type, resolve_device_type
from workflow.model import UnusableNode

RULES = {
    "R*": "cisco_ios_telnet",
    "SW*": "arista_eos_telnet",
    "BAD*": "cisco_typo",
    "frr-*": "frr_telnet",
}


@pytest.mark.parametrize(
    ("node", "expected"),
    [
        # rules win over everything, even over a node type that is otherwise unusable
        (NodeInfo("R1", node_type="qemu", template="vEOS"), "cisco_ios_telnet"),
        (NodeInfo("SW7", node_type="vpcs"), "arista_eos_telnet"),
        # tags (gns3-copilot fork) come next
        (
            NodeInfo("edge", node_type="qemu", tags=("device_type:cisco_xr_telnet",)),
            "cisco_xr_telnet",
        ),
        # heuristics over template / image / node type
        (
            NodeInfo("a", node_type="dynamips", image="c7200-adventerprisek9-mz.124-24.T5.image"),
            "cisco_ios_telnet",
        ),
        (
            NodeInfo("b", node_type="iou", image="i86bi-linux-l3-adventerprisek9-15.4.1T.bin"),
            "cisco_ios_telnet",
        ),
        (NodeInfo("c", node_type="qemu", template="Cisco IOSv 15.9"), "cisco_ios_telnet"),
        (NodeInfo("d", node_type="qemu", image="vios-adventerprisek9-m.vmdk"), "cisco_ios_telnet"),
        (NodeInfo("e", node_type="qemu", template="Arista vEOS"), "arista_eos_telnet"),
        (NodeInfo("f", node_type="qemu", image="vEOS-lab-4.28.vmdk"), "arista_eos_telnet"),
        (NodeInfo("g", node_type="qemu", template="Cisco NX-OSv 9000"), "cisco_nxos_telnet"),
        (NodeInfo("h", node_type="qemu", template="Juniper vSRX"), "juniper_junos_telnet"),
        # FRRouting: a labbot platform netmiko drives as IOS
        (NodeInfo("frr-7", node_type="docker"), "frr_telnet"),
        (NodeInfo("i", node_type="qemu", template="FRR 8.2.2"), "frr_telnet"),
        (NodeInfo("j", node_type="docker", image="frrouting/frr:v8.4.0"), "frr_telnet"),
        (NodeInfo("k", tags=("device_type:frr",)), "frr"),
    ],
)
def test_device_type_is_resolved(node: NodeInfo, expected: str) -> None:
    assert resolve_device_type(node, RULES) == expected


@pytest.mark.parametrize(
    ("node", "reason_part"),
    [
        (NodeInfo("PC1", node_type="vpcs"), "VPCS host"),
        (NodeInfo("Cloud1", node_type="cloud"), "cloud"),
        (NodeInfo("NAT1", node_type="nat"), "NAT"),
        (NodeInfo("Switch1", node_type="ethernet_switch"), "Ethernet switch"),
        (NodeInfo("srv", node_type="qemu", image="ubuntu-22.04.qcow2"), "LABBOT_DEVICE_TYPES"),
        (NodeInfo("srv", node_type="docker"), "cannot tell"),
        (NodeInfo("v", node_type="qemu", image="vios.vmdk", console_type="vnc"), "'vnc'"),
        (NodeInfo("BAD1", node_type="qemu"), "'cisco_typo' is not a netmiko device type"),
        (NodeInfo("x", tags=("device_type:nonsense",)), "node tag"),
    ],
)
def test_unknown_or_unusable_node_is_listed_with_reason(node: NodeInfo, reason_part: str) -> None:
    resolved = resolve_device_type(node, RULES)
    assert isinstance(resolved, UnusableNode)
    assert resolved.name == node.name
    assert reason_part in resolved.reason


def test_unknown_node_reason_suggests_a_rule_for_it() -> None:
    resolved = resolve_device_type(NodeInfo("lab-host", node_type="qemu"), {})
    assert isinstance(resolved, UnusableNode)
    assert "lab-host=cisco_ios_telnet" in resolved.reason


@pytest.mark.parametrize(
    ("platform", "driver"),
    [("frr", "cisco_ios"), ("frr_telnet", "cisco_ios_telnet"), ("arista_eos", "arista_eos")],
)
def test_netmiko_drives_each_platform_with_its_own_or_a_like_driver(
    platform: str, driver: str
) -> None:
    assert netmiko_type(platform) == driver
