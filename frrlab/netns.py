"""Network namespaces and the veth links between them; ending every process inside them.

Names are host-wide, so the lab gives each namespace a per-run prefix. Links are created
directly inside their namespaces (`ip link add A netns X type veth peer name B netns Y`), so no
interface ever appears in the host's namespace.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

from frrlab.host import FrrLabError, run

NETNS_DIR = Path("/run/netns")
TERM_WAIT = 3.0  # seconds between SIGTERM and SIGKILL
KILL_WAIT = 2.0
DELETE_WAIT = 5.0  # seconds to retry deleting a namespace that is still busy

# (namespace, interface, namespace, interface)
VethPair = tuple[str, str, str, str]


def create(namespaces: Sequence[str], veths: Sequence[VethPair]) -> None:
    """Create the namespaces and veth pairs in one `ip -batch` (fast for 50 routers)."""
    commands = [f"netns add {name}" for name in namespaces]
    commands += [
        f"link add {a_if} netns {a} type veth peer name {b_if} netns {b}"
        for a, a_if, b, b_if in veths
    ]
    try:
        run(["ip", "-batch", "-"], stdin="\n".join(commands) + "\n", what="ip")
    except FrrLabError as err:
        raise FrrLabError(
            f"cannot create the lab's network namespaces and links ({err}): network namespaces "
            "must be allowed (on a host, or a container run with --privileged)"
        ) from err


def bring_up(namespace: str, interfaces: Sequence[str]) -> None:
    """Set interfaces of a namespace up."""
    commands = "".join(f"link set dev {name} up\n" for name in interfaces)
    run(["ip", "-n", namespace, "-batch", "-"], stdin=commands, what=f"ip -n {namespace}")


def existing(namespaces: Iterable[str]) -> list[str]:
    """Those of `namespaces` that exist now."""
    return [name for name in namespaces if (NETNS_DIR / name).exists()]


def with_prefix(prefix: str) -> list[str]:
    """Every namespace whose name starts with `prefix`."""
    if not NETNS_DIR.is_dir():
        return []
    return sorted(entry.name for entry in NETNS_DIR.iterdir() if entry.name.startswith(prefix))


def pids_inside(namespaces: Iterable[str]) -> list[int]:
    """Processes whose network namespace is one of `namespaces` (what `ip netns pids` reads)."""
    inodes = set()
    for name in namespaces:
        try:
            inodes.add(os.stat(NETNS_DIR / name).st_ino)
        except OSError:
            continue
    if not inodes:
        return []
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if os.stat(entry / "ns" / "net").st_ino in inodes:
                    found.append(int(entry.name))
            except OSError:
                continue  # gone meanwhile, or a kernel thread
    return found


def destroy(namespaces: Sequence[str]) -> None:
    """End every process inside the namespaces (TERM, then KILL), then delete them."""
    names = existing(namespaces)
    if not names:
        return
    for sig, wait in ((signal.SIGTERM, TERM_WAIT), (signal.SIGKILL, KILL_WAIT)):
        pids = pids_inside(names)
        if not pids:
            break
        signal_all(pids, sig)
        _wait_until_empty(names, wait)
    # A namespace stays busy while a killed process is still being reaped (slow on a loaded
    # host): delete what can go, then retry the rest for a few seconds before giving up.
    deadline = time.monotonic() + DELETE_WAIT
    while True:
        try:
            run(
                ["ip", "-force", "-batch", "-"],
                stdin="".join(f"netns del {name}\n" for name in names),
                what="deleting the lab's network namespaces",
            )
        except FrrLabError:
            if time.monotonic() >= deadline:
                raise
        names = existing(names)
        if not names:
            return
        signal_all(pids_inside(names), signal.SIGKILL)
        time.sleep(0.2)


def signal_all(pids: Iterable[int], sig: signal.Signals) -> None:
    """Send `sig` to each of `pids`; one already gone is passed over."""
    for pid in pids:
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            continue


def _wait_until_empty(namespaces: Sequence[str], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while pids_inside(namespaces) and time.monotonic() < deadline:
        time.sleep(0.05)
