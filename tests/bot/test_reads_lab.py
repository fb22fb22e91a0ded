"""`lab` in chat on the simulated lab: every device with its platform, kind, address or console
and whether it answers there now — a device whose console refuses connections is said to be
unreachable, with why — and the topology picture; the probe sends no line to any device. A
lab longer than the table says how many devices it leaves out."""

from __future__ import annotations

import re
from pathlib import Path

from bot.cli.demo import DEMO_CREDENTIALS, demo_settings
from bot.commands.lab import present_inventory
from bot.runtime.wiring import open_runtime
from bot.settings import load_settings
from labsim import Lab, demo_topology
from tests.bot.chat import RecordingAdapter, ask
from workflow.devices.inventories.static import StaticInventory
from workflow.model import Device
from workflow.reads.tables import MAX_ROWS


async def test_lab_lists_each_device_and_says_which_does_not_answer(tmp_path: Path) -> None:
    chat = RecordingAdapter()
    topology = demo_topology(2, switch=True)
    async with Lab.start(topology, ssh=False, faults={"R2": "refuse"}, **DEMO_CREDENTIALS) as lab:
        config = demo_settings(load_settings(data_dir=tmp_path))
        inventory = StaticInventory(lab.write_inventory(tmp_path / "hosts.yaml", "telnet"))
        async with open_runtime(config, chat, inventory=inventory) as bot:
            await bot.service.handle(ask("lab", "alice"))
        ports = {device.name: device.telnet_port for device in lab.devices}
        seen = {device.name: list(device.commands_seen) for device in lab.devices}
    said = chat.messages()[-1]
    assert said.text.startswith("The lab: 3 device(s), 2 answering now. Unreachable: R2"), said
    header, *rows = said.blocks[0].text.splitlines()
    assert header.split() == ["device", "platform", "kind", "address", "reachable"], header
    cells = [re.split(r"\s{2,}", row) for row in rows]  # columns are two spaces apart
    table = {name: rest for name, *rest in cells}
    assert table["R1"] == ["cisco_ios_telnet", "router", f"telnet 127.0.0.1:{ports['R1']}", "yes"]
    assert table["SW1"][:2] == ["arista_eos_telnet", "switch"] and table["SW1"][3] == "yes"
    assert table["R2"][2] == f"telnet 127.0.0.1:{ports['R2']}"
    assert table["R2"][3] == "NO: connection refused", table["R2"]
    assert [file.name for file in said.files] == ["topology.png"]  # the picture, as before
    assert seen == {name: [] for name in seen}  # a connect, not a login: nothing was sent


def test_a_lab_over_the_table_limit_says_how_many_devices_are_not_shown() -> None:
    """The inventory table is cut at MAX_ROWS devices and says how many more there are, without
    the reads' `raw` hint (`lab raw` is no command)."""
    devices = [Device(f"R{n}", "cisco_ios_telnet", "127.0.0.1", 2000 + n) for n in range(203)]
    message = present_inventory(devices, dict.fromkeys((d.name for d in devices), None), [])
    table = "\n".join(block.text for block in message.blocks).splitlines()  # split at 3000 chars
    assert len(table) == 1 + MAX_ROWS + 1, table[-3:]  # header, rows, the cut
    assert table[-1] == "… and 3 more devices", table[-1]
