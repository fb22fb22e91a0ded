"""Real FRR labs: routers from the topology, named consoles, netmiko, and nothing left behind."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from netmiko import ConnectHandler

from frrlab import FrrLab, FrrLabError, generated_topology, load_frr_topology, netns
from frrlab import console as console_module
from frrlab.console import listening_ports
from frrlab.daemons import alive
from frrlab.host import DAEMONS
from frrlab.topology import DEFAULT_TOPOLOGY_FILE, frr_topology_from_dict

pytestmark = [
    pytest.mark.frr,
    pytest.mark.usefixtures("frr_host"),
    pytest.mark.xdist_group("frr-lab"),
]

SYSTEM_FRR_FOLDERS = (Path("/var/tmp/frr"), Path("/var/run/frr"), Path("/etc/frr"))


def console_greeting(host: str, port: int, until: bytes = b"# ") -> str:
    """What a telnet client sees after pressing Enter on the console."""
    with socket.create_connection((host, port), timeout=10) as sock:
        sock.sendall(b"\r\n")
        seen = b""
        while not seen.endswith(until):
            chunk = sock.recv(4096)
            if not chunk:
                break
            seen += chunk
    return seen.decode(errors="replace")


def folder_listing() -> dict[Path, list[str] | None]:
    return {p: sorted(os.listdir(p)) if p.is_dir() else None for p in SYSTEM_FRR_FOLDERS}


def test_routers_have_the_file_s_interfaces_links_and_named_consoles() -> None:
    topology = load_frr_topology(DEFAULT_TOPOLOGY_FILE)
    with FrrLab.run() as lab:
        for spec in topology.devices:
            brief = lab.vtysh(spec.name, "show interface brief")
            for interface in spec.interfaces:
                assert f"{interface.address.with_prefixlen}" in brief  # type: ignore[union-attr]
            assert console_greeting(lab.host, lab.port(spec.name)).endswith(f"{spec.name}# ")
        veth = ["ip", "-n", lab.namespace("R2"), "-o", "link", "show", "eth1"]
        assert f"link-netns {lab.namespace('R3')}" in subprocess.check_output(veth, text=True)
        hosts = yaml.safe_load(yaml.safe_dump(lab.nornir_hosts()))
    assert hosts["R2"]["platform"] == "frr_telnet"
    assert hosts["R2"]["data"]["role"] == "router"
    assert hosts["R2"]["data"]["interfaces"]["eth1"] == {
        "address": "10.0.23.1/30",
        "peer": "R3:eth0",
    }


def test_a_stub_interface_is_a_dummy_with_its_address() -> None:
    topology = frr_topology_from_dict(
        {"routers": {"E1": {"interfaces": {"eth3": {"address": "192.168.7.1/24"}}}}}
    )
    with FrrLab.run(topology) as lab:
        assert "eth3            up      default         192.168.7.1/24" in lab.vtysh(
            "E1", "show interface brief"
        )


def test_everything_is_removed_on_exit_even_with_a_console_session_open() -> None:
    before = folder_listing()
    with FrrLab.run(generated_topology(2)) as lab:
        pids = [lab.dirs[r].pid(d) for r in lab.routers for d in DAEMONS]
        consoles = [c.process.pid for c in lab.consoles.values()]
        ports = {lab.port(r) for r in lab.routers}
        folder = lab.dirs["R1"].root.parent
        session = socket.create_connection((lab.host, lab.port("R1")))
        console_greeting(lab.host, lab.port("R2"))
        assert len(netns.with_prefix(lab.prefix)) == 2
    session.close()
    assert netns.with_prefix(lab.prefix) == []
    assert not [pid for pid in pids + consoles if alive(pid)]
    assert not ports & listening_ports(lab.host).keys()
    assert not folder.exists()
    assert folder_listing() == before


def test_a_failed_start_removes_what_it_started(tmp_path: Path) -> None:
    frr_dir = tmp_path / "frr"
    frr_dir.mkdir()
    for daemon in DAEMONS:
        (frr_dir / daemon).symlink_to(Path("/usr/lib/frr") / daemon)
    (frr_dir / "bgpd").unlink()
    (frr_dir / "bgpd").write_text("#!/bin/sh\necho bgpd cannot start here >&2\nexit 1\n")
    (frr_dir / "bgpd").chmod(0o755)
    before = set(netns.with_prefix("frr-lab-"))
    with (
        pytest.raises(FrrLabError, match="router R1 did not start: bgpd cannot start here"),
        FrrLab.run(generated_topology(2), frr_dir=frr_dir),
    ):
        pass
    assert set(netns.with_prefix("frr-lab-")) == before
    assert not [p for p in Path("/proc").glob("[0-9]*/cmdline") if str(frr_dir) in _read(p)]


def _read(path: Path) -> str:
    try:
        return path.read_text(errors="replace")
    except OSError:
        return ""


def test_netmiko_cisco_ios_telnet_configures_a_router_through_its_console() -> None:
    with FrrLab.run(generated_topology(1)) as lab:
        connection = ConnectHandler(
            device_type="cisco_ios_telnet", host=lab.host, port=lab.port("R1"), fast_cli=True
        )
        try:
            assert connection.find_prompt() == "R1#"  # `terminal width` was refused, harmlessly
            connection.send_config_set(["router ospf", "ospf router-id 10.255.0.1"])
            running = connection.send_command("show running-config")
        finally:
            connection.disconnect()
    assert "router ospf\n ospf router-id 10.255.0.1\nexit" in running


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT])
def test_labbot_lab_frr_runs_until_a_signal_then_removes_everything(
    tmp_path: Path, stop: signal.Signals
) -> None:
    inventory = tmp_path / "hosts.yaml"
    before = set(netns.with_prefix("frr-lab-"))
    process = subprocess.Popen(
        [sys.executable, "-m", "bot", "lab", "--frr", "--inventory", str(inventory)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        hosts = _wait_for_inventory(inventory, process)
        ports = {host["port"] for host in hosts.values()}
        assert sorted(hosts) == ["R1", "R2", "R3"]
        assert console_greeting("127.0.0.1", hosts["R3"]["port"]).endswith("R3# ")
        process.send_signal(stop)
        output, _ = process.communicate(timeout=30)
    finally:
        process.kill()
    assert "FRR lab frr-lab-" in output
    assert "Traceback" not in output
    assert set(netns.with_prefix("frr-lab-")) <= before  # (its start sweeps killed labs' too)
    assert not ports & listening_ports("127.0.0.1").keys()


def _wait_for_inventory(path: Path, process: subprocess.Popen[str]) -> dict[str, dict]:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"labbot lab --frr ended early: {process.stdout.read()}")  # type: ignore[union-attr]
        if path.exists() and path.stat().st_size:
            return dict(yaml.safe_load(path.read_text()))
        time.sleep(0.1)
    pytest.fail("labbot lab --frr wrote no inventory within 30 s")


def test_without_root_one_line_says_so() -> None:
    labbot = [sys.executable, "-m", "bot", "lab", "--frr"]
    done = subprocess.run(
        ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", *labbot],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "labbot: labbot lab --frr needs root: it creates network namespaces and bind mounts; "
        "run it with sudo (or as root in a privileged container)"
    ]


def test_where_namespaces_are_not_allowed_one_line_says_so() -> None:
    labbot = [sys.executable, "-m", "bot", "lab", "--frr"]
    done = subprocess.run(
        ["unshare", "--user", "--map-root-user", *labbot],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("labbot: cannot create the lab's network namespaces")
    assert "Operation not permitted" in line
    assert "--privileged" in line


def test_frr_missing_says_which_package_to_install(tmp_path: Path) -> None:
    with (
        pytest.raises(FrrLabError, match=r"FRRouting is not installed .*apt-get install frr"),
        FrrLab.run(generated_topology(1), frr_dir=tmp_path),
    ):
        pass


def test_a_console_port_taken_meanwhile_is_replaced_by_another(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Another program takes the probed port before socat binds it: socat exits, the console
    is opened on the next free port and answers there."""
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    busy = taken.getsockname()[1]
    probes = iter([busy])
    real_probe = console_module._probe_free_port
    monkeypatch.setattr(console_module, "_probe_free_port", lambda h: next(probes, real_probe(h)))
    try:
        with FrrLab.run(generated_topology(1)) as lab:
            port = lab.port("R1")
            greeting = console_greeting(lab.host, port)
    finally:
        taken.close()
    assert port != busy
    assert greeting.endswith("R1# ")


def test_labbot_lab_frr_kernel_addresses_leaves_frr_s_config_without_them(tmp_path: Path) -> None:
    """`--kernel-addresses`: the routers are addressed with `ip addr`; FRR shows the addresses
    in its state, none in its running config."""
    inventory = tmp_path / "hosts.yaml"
    labbot = [sys.executable, "-m", "bot", "lab", "--frr", "--kernel-addresses"]
    process = subprocess.Popen(
        [*labbot, "--inventory", str(inventory)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        hosts = _wait_for_inventory(inventory, process)
        port = hosts["R1"]["port"]
        connection = ConnectHandler(device_type="cisco_ios_telnet", host="127.0.0.1", port=port)
        try:
            running = connection.send_command("show running-config")
            state = connection.send_command("show interface lo")
        finally:
            connection.disconnect()
        process.send_signal(signal.SIGTERM)
        process.communicate(timeout=30)
    finally:
        process.kill()
    assert "ip address" not in running
    assert "inet 10.255.0.1/32" in state
