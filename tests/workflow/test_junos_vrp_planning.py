"""OSPF on a Junos and a VRP router whose DHCP-leased address only their state shows: the
library planner, the change graph and the recording gateway, whose facts merge the config
with the state as the real gateway does (workflow/devices/facts.py)."""

from __future__ import annotations

from pathlib import Path

from storage.checkpointer import SQLAlchemySaver
from tests.workflow.devices.test_junos_vrp_interfaces import (
    JUNOS_CONFIG,
    JUNOS_STATE,
    VRP_CONFIG,
    VRP_STATE,
)
from tests.workflow.gateways import RecordingGateway
from tests.workflow.test_graph import to_params_gate, workflow


def lab(*, states: bool) -> RecordingGateway:
    return RecordingGateway(
        configs={"J1": JUNOS_CONFIG, "V1": VRP_CONFIG},
        platforms={"J1": "juniper_junos", "V1": "huawei_vrp"},
        states={"J1": JUNOS_STATE, "V1": VRP_STATE} if states else {},
    )


async def test_ospf_is_planned_on_the_leased_interfaces(tmp_path: Path) -> None:
    async with SQLAlchemySaver.from_url(f"sqlite+aiosqlite:///{tmp_path / 'g.db'}") as saver:
        gate = await to_params_gate(
            workflow(saver, lab(states=True)), text="configure ospf on J1 and V1"
        )
    devices = gate.payload["devices"]
    assert devices["J1"]["lines"] == [
        "set routing-options router-id 192.0.2.1",
        "set protocols ospf area 0 interface ge-0/0/0.0",  # leased: only the state has it
        "set protocols ospf area 0 interface lo0.0",
    ]  # ge-0/0/1.0 is disabled
    assert devices["V1"]["lines"] == [
        "ospf 1 router-id 192.0.2.2",
        " area 0",
        "  network 10.0.99.0 0.0.0.255",  # leased: only the state has it
        "  network 192.0.2.2 0.0.0.0",
    ]  # GigabitEthernet0/0/1 is shut down


async def test_without_the_state_the_leased_interfaces_are_not_planned(tmp_path: Path) -> None:
    async with SQLAlchemySaver.from_url(f"sqlite+aiosqlite:///{tmp_path / 'g.db'}") as saver:
        gate = await to_params_gate(
            workflow(saver, lab(states=False)), text="configure ospf on J1 and V1"
        )
    devices = gate.payload["devices"]
    assert devices["J1"]["lines"][1:] == ["set protocols ospf area 0 interface lo0.0"]
    assert devices["V1"]["lines"][2:] == ["  network 192.0.2.2 0.0.0.0"]
