"""What a `kill -9`ed `labbot lab --frr` left (namespaces, daemons, consoles, folder) is removed
(and its SSH login user) is removed by `labbot lab --frr --sweep` or the next `labbot lab --frr`;
a live lab is never touched."""

from __future__ import annotations

import pwd
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from frrlab import FrrLab, generated_topology, netns
from frrlab.console import listening_ports
from frrlab.daemons import alive
from tests.frrlab.test_lab import _wait_for_inventory, console_greeting

pytestmark = [
    pytest.mark.frr,
    pytest.mark.usefixtures("frr_host"),
    pytest.mark.xdist_group("frr-lab"),
]

LABBOT = [sys.executable, "-m", "bot", "lab", "--frr"]


class Killed:
    """A `labbot lab --frr` run ended with SIGKILL, and what it left."""

    def __init__(self, inventory: Path, devices: int, *options: str) -> None:
        before = set(netns.with_prefix("frr-lab-"))
        process = subprocess.Popen(
            [*LABBOT, "--devices", str(devices), "--inventory", str(inventory), *options],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.STDOUT,
        )
        try:
            hosts = _wait_for_inventory(inventory, process)  # type: ignore[arg-type]
            self.namespaces = sorted(set(netns.with_prefix("frr-lab-")) - before)
        finally:
            process.send_signal(signal.SIGKILL)
            process.wait()
        self.prefix = self.namespaces[0].rsplit("-", 1)[0]
        self.ports = {host["port"] for host in hosts.values()}
        (self.folder,) = Path(tempfile.gettempdir()).glob(f"{self.prefix}-*")
        self.daemons = netns.pids_inside(self.namespaces)

    def left(self) -> dict[str, object]:
        return {
            "namespaces": netns.with_prefix(f"{self.prefix}-"),
            "consoles": sorted(self.ports & listening_ports("127.0.0.1").keys()),
            "daemons": [pid for pid in self.daemons if alive(pid)],
            "folder": self.folder.exists(),
            "user": self.prefix in {user.pw_name for user in pwd.getpwall()},
        }


NOTHING = {"namespaces": [], "consoles": [], "daemons": [], "folder": False, "user": False}


def test_a_killed_lab_is_swept_and_a_live_lab_is_kept(tmp_path: Path) -> None:
    with FrrLab.run(generated_topology(1)) as live:
        killed = Killed(tmp_path / "killed.yaml", 2)
        assert len(killed.namespaces) == 2 and killed.left()["folder"]
        assert killed.left()["consoles"] and killed.left()["daemons"]  # all still there
        done = subprocess.run([*LABBOT, "--sweep"], capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        assert "Removed what" in done.stdout and f"{killed.prefix}" in done.stdout, done.stdout
        assert killed.left() == NOTHING
        assert live.prefix not in done.stdout
        assert netns.with_prefix(live.prefix) == [live.namespace("R1")]
        assert console_greeting(live.host, live.port("R1")).endswith("R1# ")
        assert "R1" in live.vtysh("R1", "show running-config")


def test_the_next_labbot_lab_frr_sweeps_first_and_says_so(tmp_path: Path) -> None:
    killed = Killed(tmp_path / "killed.yaml", 1, "--ssh")  # its SSH login user too
    assert killed.left()["user"] and killed.left()["consoles"]
    inventory = tmp_path / "next.yaml"
    process = subprocess.Popen(
        [*LABBOT, "--devices", "1", "--inventory", str(inventory)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        _wait_for_inventory(inventory, process)
        assert killed.left() == NOTHING
        process.send_signal(signal.SIGTERM)
        output, _ = process.communicate(timeout=30)
    finally:
        process.kill()
    first = output.splitlines()[0]
    assert first.startswith("Removed what") and killed.prefix in first, output


def test_sweep_needs_frr() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bot", "lab", "--sweep"], capture_output=True, text=True
    )
    assert done.returncode != 0
    assert "use --frr --sweep" in done.stderr
