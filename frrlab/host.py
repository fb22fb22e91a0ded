"""What an FRR lab needs from the host (root, FRR, socat, iproute2), checked before anything
starts, and the one way this package runs a host command.

Every problem is one `FrrLabError` line saying which requirement is missing and how to fix it.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from base.errors import LabbotError

FRR_DIR = Path("/usr/lib/frr")
DAEMONS = ("zebra", "staticd", "ospfd", "bgpd")
FRR_USER = "frr"
COMMAND_TIMEOUT = 30.0

# tool -> the Debian package that has it
TOOLS = {
    "vtysh": "frr",
    "socat": "socat",
    "ip": "iproute2",
    "unshare": "util-linux",
    "nsenter": "util-linux",
}


class FrrLabError(LabbotError):
    """The FRR lab cannot start or run here; the message names the cause and the fix."""


def check_host(frr_dir: Path = FRR_DIR) -> None:
    """Raise FrrLabError naming the first missing requirement (root, FRR, a tool, the user)."""
    if not sys.platform.startswith("linux"):
        raise FrrLabError("labbot lab --frr needs Linux (network namespaces)")
    if os.geteuid() != 0:
        raise FrrLabError(
            "labbot lab --frr needs root: it creates network namespaces and bind mounts; "
            "run it with sudo (or as root in a privileged container)"
        )
    missing = [str(frr_dir / d) for d in DAEMONS if not os.access(frr_dir / d, os.X_OK)]
    if missing:
        raise FrrLabError(
            f"FRRouting is not installed ({missing[0]} not found): apt-get install frr"
        )
    for tool, package in TOOLS.items():
        if shutil.which(tool) is None:
            raise FrrLabError(f"{tool} is not installed: apt-get install {package}")
    try:
        pwd.getpwnam(FRR_USER)
    except KeyError:
        raise FrrLabError(
            f"there is no {FRR_USER!r} user for the FRR daemons: reinstall the frr package"
        ) from None


def run(argv: Sequence[str], *, stdin: str | None = None, what: str) -> str:
    """Run a host command; a failure raises FrrLabError with `what` and the command's stderr."""
    try:
        done = subprocess.run(
            list(argv),
            input=stdin,
            capture_output=True,
            text=True,
            timeout=COMMAND_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as err:
        raise FrrLabError(f"{what}: {err}") from err
    if done.returncode != 0:
        reason = summary(done.stderr) or summary(done.stdout) or f"exit status {done.returncode}"
        raise FrrLabError(f"{what}: {reason}")
    return done.stdout


def summary(text: str, lines: int = 3) -> str:
    """The last few non-empty lines of a command's output, as one line (tools put the reason
    last, but `ip -batch` adds "Command failed -:N" after it)."""
    kept = [line.strip() for line in text.splitlines() if line.strip()]
    return "; ".join(kept[-lines:])
