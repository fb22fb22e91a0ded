"""SSH into an FRR router, the login landing in its vtysh: what inventory platform `frr` reaches.

Per router, socat listens on a free port of 127.0.0.1 and runs, per connection, OpenSSH's
`sshd -i` (inetd mode) inside the router's network, UTS and mount namespaces, with the lab's own
host key and configuration: password login of the lab's user only, and `ForceCommand` vtysh on
that router's daemons. The user is a system user named after the lab's prefix (in the `frrvty`
group, so vtysh may reach the daemons), with a random password; it is removed with the lab,
and by a sweep when the lab's owner was killed (`remove_user`).
"""

from __future__ import annotations

import os
import pwd
import re
import secrets
import shutil
from dataclasses import dataclass
from pathlib import Path

from frrlab.console import Console, serve_command
from frrlab.daemons import RouterDir
from frrlab.host import FrrLabError, run

SSHD = Path("/usr/sbin/sshd")
USER_MARK = "labbot FRR lab"  # the user's GECOS: a sweep removes only users carrying it
USER_NAME = re.compile(r"[a-z_][a-z0-9_-]{0,31}")
VTY_GROUP = "frrvty"


@dataclass(frozen=True)
class SshLogin:
    """The login every router's SSH port takes."""

    username: str
    password: str


def check_sshd() -> None:
    if not os.access(SSHD, os.X_OK):
        raise FrrLabError(f"SSH into the routers needs {SSHD}: apt-get install openssh-server")


def add_user(name: str) -> SshLogin:
    """Create the lab's login user (a system user, no home) with a random password."""
    if not USER_NAME.fullmatch(name):
        raise FrrLabError(f"the lab prefix {name!r} cannot name a user: lowercase, ≤ 32 characters")
    password = secrets.token_urlsafe(18)
    account = ["--system", "--no-create-home", "--home-dir", "/nonexistent", "--shell", "/bin/sh"]
    marks = ["--groups", VTY_GROUP, "--comment", USER_MARK]
    run(["useradd", *account, *marks, name], what=f"creating the lab's SSH user {name}")
    run(["chpasswd"], stdin=f"{name}:{password}\n", what=f"setting {name}'s password")
    return SshLogin(name, password)


def remove_user(name: str) -> bool:
    """Remove the lab's user if it exists and is one (its GECOS mark); True if removed."""
    try:
        if pwd.getpwnam(name).pw_gecos != USER_MARK:
            return False
    except KeyError:
        return False
    run(["userdel", name], what=f"removing the lab's SSH user {name}")
    return True


def host_key(folder: Path) -> Path:
    """The lab's SSH host key (one for all its routers), made once."""
    keys = folder / "ssh"
    keys.mkdir(mode=0o700, exist_ok=True)
    key = keys / "host_ed25519"
    if not key.exists():
        run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], what="ssh-keygen")
    return key


def open_ssh(
    router: str,
    host: str,
    zebra_pid: int,
    folders: RouterDir,
    key: Path,
    login: SshLogin,
    port: int | None = None,
) -> Console:
    """Start `router`'s SSH port (`port`, or a free one); FrrLabError when it cannot open."""
    privsep = folders.root / "run" / "sshd"  # the router's /run: sshd's privilege separation
    privsep.mkdir(mode=0o755, exist_ok=True)
    shutil.chown(privsep, "root", "root")
    config = folders.root / "sshd_config"
    config.write_text(
        "\n".join(
            [
                f"HostKey {key}",
                "UsePAM no",
                "PasswordAuthentication yes",
                "KbdInteractiveAuthentication no",
                "PubkeyAuthentication no",
                "PermitRootLogin no",
                f"AllowUsers {login.username}",
                f"ForceCommand vtysh --vty_socket {folders.run}",
                "PidFile none",
                "",
            ]
        )
    )
    sshd = f"nsenter -t {zebra_pid} -n -u -m {SSHD} -i -e -f {config}"
    log = folders.root.parent / f"{router}.ssh.log"
    return serve_command(router, host, sshd, log, "SSH port", port)
