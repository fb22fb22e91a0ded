"""`labbot check` and `serve`'s check on a deployed containerlab lab (the fixture as containerlab
writes it): its devices and links are listed; its hosts and the kinds labbot cannot drive are
said as warnings, so `serve` starts on such a lab (a hosts file's unusable host stays broken)."""

from __future__ import annotations

from pathlib import Path

from bot.check.findings import line
from bot.check.inventory_items import inventory_findings
from bot.settings import load_settings
from tests.workflow.devices.test_containerlab import LAB


async def test_a_containerlab_lab_lists_links_and_warns_of_its_hosts(tmp_path: Path) -> None:
    # the `linux` nodes have no login in the generated inventory: the settings give one
    login = {"device_username": "root", "device_password": "lab-pass"}
    settings = load_settings(data_dir=tmp_path, inventory=LAB, **login)
    devices, findings = await inventory_findings(settings)
    said = [line(finding) for finding in findings]
    assert [device.name for device in devices] == ["router1", "router2", "router3", "ceos1"]
    assert said[:2] == [
        f"✓ inventory: {LAB}: 4 device(s): router1, router2, router3, ceos1",
        "✓ links: 3 link(s) between the devices: router1 eth1 — router2 eth1, "
        "router1 eth2 — router3 eth1, router2 eth2 — router3 eth2",
    ]
    assert said[2].startswith("! inventory: PC1: a Linux host (kind linux), not a network device")
    assert said[3].startswith("! inventory: sros1: labbot cannot drive containerlab kind")
    assert not [finding for finding in findings if finding.status == "fail"], said
