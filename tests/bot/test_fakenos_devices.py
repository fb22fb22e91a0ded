"""labbot against FakeNOS devices (VRP and Junos with outputs recorded from real devices, over
SSH), as a person runs it: a read of a command the device does not know is that device's
failure in its own words, and `labbot check` names the class of what failed with a fix for
that platform."""

from __future__ import annotations

import json
import os
import pwd
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.bot.test_check import labbot
from tests.bot.test_console_input import console
from tests.support.fakenos_lab import FakeDevice, fakenos_lab, write_inventory

ME = pwd.getpwuid(os.getuid()).pw_name
VRP_REFUSAL = "Error: Unrecognized command found at '^' position."
DEVICES = {
    "VRP1": FakeDevice("huawei_vrp", "huawei_vrp", VRP_REFUSAL),
    "JUN1": FakeDevice("juniper_junos", "juniper_junos", "unknown command."),
}
# labbot's TCP probe connects and closes before any SSH banner: FakeNOS's server thread dies
# of it (paramiko: "Error reading SSH protocol banner"); that device still serves the login
pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")


@pytest.fixture
def lab(tmp_path: Path) -> Iterator[dict[str, str]]:
    with fakenos_lab(DEVICES) as ports:
        write_inventory(tmp_path / "hosts.yaml", DEVICES, ports)
        yield {"LABBOT_INVENTORY": "hosts.yaml", "LABBOT_DATA_DIR": str(tmp_path / "data")}


async def test_a_read_the_device_does_not_know_is_its_failure_in_its_words(
    tmp_path: Path, lab: dict[str, str]
) -> None:
    chat = "display ip bogus on VRP1\nshow bogus on JUN1\ndisplay version on VRP1 raw\nquit\n"
    status, said = await console(tmp_path, lab, stdin=chat.encode())
    assert status == 0, said
    shown = " ".join(said.split())
    assert f"`display ip bogus` was refused: {VRP_REFUSAL}" in shown, said
    assert "`show bogus` was refused: unknown command." in shown, said
    assert "VRP (R) software, Version 8.180" in shown  # a known command reads as it is


async def test_check_says_a_refused_configuration_read_with_a_fix_for_the_platform(
    tmp_path: Path, lab: dict[str, str]
) -> None:
    status, out, err = await labbot("check", "--json", cwd=tmp_path, env=lab)
    assert status == 1, out + err
    found = {f["area"]: f for f in json.loads(out)["findings"] if f["area"].startswith("device")}
    vrp, junos = found["device VRP1"], found["device JUN1"]
    assert vrp["status"] == junos["status"] == "fail"
    assert vrp["said"] == f"`display current-configuration` was refused: {VRP_REFUSAL}"
    assert "level high enough to read the configuration" in vrp["fix"]
    assert junos["said"] == "`show configuration` was refused: unknown command."
    assert "view-configuration" in junos["fix"]
    assert "LABBOT_DEVICE_SECRET" not in vrp["fix"] + junos["fix"]  # neither has `enable`
