"""Parsing what devices show: FRR's JSON (captured from real FRR 8.4.4) and IOS text through
ntc-templates (as the simulated IOS prints it), then judging expectations against it."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.views.postcheck import item_body
from labsim import Lab, SimDevice, demo_topology
from labsim.cli import CliSession
from tests.workflow.devices.rig import Stores
from workflow.devices.inventories.static import StaticInventory
from workflow.postcheck_outcome import Evidence, Missing
from workflow.postchecks.evaluate import Expectation, unmet
from workflow.postchecks.parsers import RoutingState, commands, parse

FRR = Path(__file__).parent / "fixtures" / "frr"


def frr_state(router: str):  # type: ignore[no-untyped-def]
    outputs = {
        topic: (FRR / f"{router}.{topic}.json").read_text() for topic in ("ospf", "routes", "bgp")
    }
    return parse("frr_telnet", outputs)  # type: ignore[arg-type]


def test_frr_json_reads_neighbours_selected_routes_and_sessions() -> None:
    r2, r3 = frr_state("R2"), frr_state("R3")
    assert r2.ospf_neighbors == {"10.0.12.1": "Full", "10.0.23.2": "Full"}
    assert r2.routes["10.255.0.1/32"] == {"bgp"}  # eBGP (20) is preferred over OSPF (110)
    assert r2.routes["10.0.12.0/30"] == {"connected"}  # the OSPF route exists, not selected
    assert r3.bgp_peers == {"10.0.23.1": "Established", "10.0.99.9": "Active"}
    assert frr_state("R1").routes["192.0.2.0/24"] == {"static"}


@pytest.mark.parametrize(
    ("expected", "evidence"),
    [
        (Expectation("ospf_neighbors", "ospf", "10.0.23.2", "R3", "eth0"), None),
        (Expectation("ospf_neighbors", "ospf", "10.0.99.1"), ("state", [])),
        (Expectation("bgp_sessions", "bgp", "10.0.23.1", "R2"), None),
        (Expectation("bgp_sessions", "bgp", "10.0.99.9"), ("state", ["Active"])),
        (Expectation("routes", "routes", "10.255.0.1/32", protocol="bgp"), None),
        (
            Expectation("routes", "routes", "10.255.0.1/32", protocol="ospf"),
            ("held_by_other", ["bgp"]),
        ),
        (Expectation("routes", "routes", "192.0.2.0/24"), ("not_in_table", [])),
    ],
)
def test_expectations_against_real_frr_state(
    expected: Expectation, evidence: tuple[Evidence, list[str]] | None
) -> None:
    state = frr_state("R3") if expected.topic != "ospf" else frr_state("R2")
    missing = unmet(expected, state)
    if evidence is None:
        assert missing is None
    else:
        assert missing == Missing(fact=expected.fact(), evidence=evidence[0], seen=evidence[1])


def test_frr_output_that_is_not_json_is_refused() -> None:
    with pytest.raises(ValueError, match="not JSON"):
        parse("frr", {"ospf": "OSPF not enabled"})


def test_ios_routing_table_through_ntc_templates() -> None:
    device = SimDevice.from_spec(demo_topology(2).device("R1"), {})
    session = CliSession(device, privileged=True, secret="")
    session.feed_line("configure terminal")
    session.feed_line("ip route 10.99.0.0 255.255.0.0 10.0.12.2")
    session.feed_line("end")
    command = commands("cisco_ios_telnet", ["routes"])
    assert command == {"routes": "show ip route"}
    output = session.feed_line("show ip route").split("\n", 1)[1].rsplit("\n", 1)[0]
    state = parse("cisco_ios_telnet", {"routes": output})
    assert "static" in state.routes["10.99.0.0/16"]
    assert state.routes["10.255.0.1/32"] == {"connected"}


def test_platforms_without_a_parser_are_said_so() -> None:
    assert commands("juniper_junos", ["ospf"]) is None


async def test_simulated_devices_say_their_checks_were_not_run(
    tmp_path: Path, stores: Stores
) -> None:
    """labsim runs no routing protocol: its devices' checks are reported not run, never passed
    on made-up state (real FRR proves the checks: test_engine_frr)."""
    async with Lab.start(1, ssh=False) as lab:
        inventory = StaticInventory(lab.write_inventory(tmp_path / "hosts.yaml"))
        devices, _, _ = await inventory.load()
        assert devices[0].simulator == "labsim"
        gateway = stores.gateway(inventory)
        expected = {"R1": [Expectation("ospf_neighbors", "ospf", "10.0.12.2", "R2", "eth0")]}
        result = await gateway.post_check(expected, 5)
        [item] = result["data"]
        assert item["status"] == "success"
        assert item_body(item) == "post-checks not run: R1 is simulated (labsim), no routing runs"


def test_a_route_known_but_not_installed_says_so() -> None:
    state = RoutingState(unused={"10.99.0.0/16": {"static"}})
    expected = Expectation("routes", "routes", "10.99.0.0/16", protocol="static")
    missing = unmet(expected, state)
    assert missing == Missing(fact=expected.fact(), evidence="not_installed", seen=["static"])
    assert frr_state("R2").unused["10.0.12.0/30"] == {"ospf"}  # FRR's inactive OSPF entry
