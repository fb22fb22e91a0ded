"""One FRR router: its folder, its startup configuration, its daemons started inside its
namespace, and what they use.

The daemons run inside `ip netns exec NS unshare --uts --mount`: a private hostname (the vtysh
prompt shows the router's name) and bind mounts of the router's own folders over /run,
/var/tmp and /etc/frr, so nothing is written to the host's FRR folders (the parents are covered
because /var/tmp/frr may not exist on the host, and creating it there would leak). Every path a
daemon uses is also given explicitly (`--vty_socket`, `-z`, `-i`, `-f`, `--log`).
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from frrlab.host import DAEMONS, FRR_USER, FrrLabError, summary
from frrlab.topology import LOOPBACK
from labsim.topology import DeviceSpec

READY_SECONDS = 15.0  # from starting the daemons until every vty socket is there


@dataclass(frozen=True)
class RouterDir:
    """The folders of one router under the lab's folder."""

    root: Path

    @property
    def etc(self) -> Path:
        return self.root / "etc"

    @property
    def run(self) -> Path:
        return self.root / "run" / "frr"

    @property
    def log(self) -> Path:
        return self.root / "log"

    def pid(self, daemon: str) -> int:
        return int((self.run / f"{daemon}.pid").read_text().strip())


def prepare(root: Path, spec: DeviceSpec, *, kernel_addresses: bool = False) -> RouterDir:
    """Create the router's folders and startup configuration, owned by the FRR user.
    `kernel_addresses`: the config holds no address (start_script sets them with `ip addr`)."""
    folders = RouterDir(root)
    for path in (folders.etc, folders.run, root / "tmp" / "frr", folders.log):
        path.mkdir(parents=True)
    (folders.etc / "zebra.conf").write_text(zebra_config(spec, addresses=not kernel_addresses))
    for daemon in (*DAEMONS[1:], "vtysh"):
        (folders.etc / f"{daemon}.conf").write_text("")
    for path in (root, *root.rglob("*")):
        shutil.chown(path, FRR_USER, FRR_USER)
    return folders


def zebra_config(spec: DeviceSpec, *, addresses: bool = True) -> str:
    """Hostname, interface descriptions and (unless `addresses` is False) addresses: what a
    fresh router's config shows."""
    lines = [f"hostname {spec.name}", "!"]
    for interface in spec.interfaces:
        lines.append(f"interface {interface.name}")
        if interface.description:
            lines.append(f" description {interface.description}")
        if addresses and interface.address is not None:
            lines.append(f" ip address {interface.address.with_prefixlen}")
        lines += ["exit", "!"]
    return "\n".join(lines) + "\n"


def start_script(
    folders: RouterDir, spec: DeviceSpec, frr_dir: Path, *, kernel_addresses: bool = False
) -> str:
    """The shell script run inside the router's namespaces: mounts, hostname, links, daemons.
    `kernel_addresses`: the addresses are set with `ip addr` before the daemons start, as
    containerlab topologies and lab scripts set them (zebra then learns them from the kernel)."""
    q = shlex.quote
    root = folders.root
    lines = [
        "set -e",
        f"mount --bind {q(str(root / 'run'))} /run",
        f"mount --bind {q(str(root / 'tmp'))} /var/tmp",
        f"mount --bind {q(str(folders.etc))} /etc/frr",
        f"hostname {q(spec.name)}",
    ]
    names = {interface.name for interface in spec.interfaces} | {LOOPBACK}
    lines += [f"ip link set dev {q(name)} up" for name in sorted(names)]
    if kernel_addresses:
        lines += [
            f"ip addr add {i.address.with_prefixlen} dev {q(i.name)}"
            for i in spec.interfaces
            if i.address is not None
        ]
    lines += [_daemon_command(folders, frr_dir, daemon) for daemon in DAEMONS]
    return "\n".join(lines) + "\n"


def _daemon_command(folders: RouterDir, frr_dir: Path, daemon: str) -> str:
    run = folders.run
    argv = [
        str(frr_dir / daemon),
        "-d",
        "-F",
        "traditional",
        "-P",
        "0",
        "-f",
        str(folders.etc / f"{daemon}.conf"),
        "-i",
        str(run / f"{daemon}.pid"),
        "--vty_socket",
        str(run),
        "-z",
        str(run / "zserv.api"),
        "--log",
        f"file:{folders.log / daemon}.log",
    ]
    return shlex.join(argv)


def launch(namespace: str, script: str) -> subprocess.Popen[str]:
    """Start the script in the namespace with a private hostname and mount table."""
    return subprocess.Popen(
        ["ip", "netns", "exec", namespace, "unshare", "--uts", "--mount", "sh", "-c", script],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(name: str, process: subprocess.Popen[str], folders: RouterDir) -> int:
    """Wait for the start script and the daemons' vty sockets; the zebra pid (for consoles)."""
    _, stderr = process.communicate(timeout=READY_SECONDS)
    if process.returncode != 0:
        raise FrrLabError(
            f"router {name} did not start: {summary(stderr, lines=1) or 'no reason given'}"
        )
    deadline = time.monotonic() + READY_SECONDS
    sockets = [folders.run / f"{daemon}.vty" for daemon in DAEMONS]
    while not all(path.exists() for path in sockets):
        if time.monotonic() > deadline:
            absent = [p.name for p in sockets if not p.exists()]
            raise FrrLabError(
                f"router {name}: no {', '.join(absent)} after {READY_SECONDS:g} s "
                f"(see the logs in {folders.log})"
            )
        time.sleep(0.02)
    return folders.pid("zebra")


def memory_bytes(folders: RouterDir) -> int:
    """Resident memory of the router's daemons."""
    total = 0
    for daemon in DAEMONS:
        status = Path("/proc") / str(folders.pid(daemon)) / "status"
        for line in status.read_text().splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1]) * 1024
    return total


def alive(pid: int) -> bool:
    """True while `pid` runs (a zombie counts as ended)."""
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"
