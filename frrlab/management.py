"""Management addresses: each router answers SSH on port 22 of its own address, with the login
containerlab's `frr` kind gives (`admin`, password `admin`, landing in vtysh).

containerlab reaches a node at its management address on port 22. Here each router gets one
address of a /24 drawn at random from 127/8 (all of it is local on Linux, so nothing is added to
the host's network; a random block keeps parallel labs apart), and its SSH listener binds there.
The `admin` login exists only inside the routers' mount namespaces: their /etc/passwd and group
are bind-mounted copies of the host's with `admin` added, under the lab user's uid and the frrvty
group (so vtysh reaches the daemons), and their /etc/shadow holds admin's line alone. The host
gains no user called admin.
"""

from __future__ import annotations

import grp
import pwd
import secrets
from collections.abc import Sequence
from pathlib import Path

from base.containerlab_kinds import FRR, KIND_LOGINS
from frrlab.host import FrrLabError, run
from frrlab.ssh import USER_MARK, VTY_GROUP, SshLogin

SSH_PORT = 22
KIND_LOGIN = SshLogin(*KIND_LOGINS[FRR])
ACCOUNT_FILES = ("passwd", "shadow", "group")
FIRST_HOST = 2  # as containerlab numbers its management network: .1 is the bridge's gateway
HOSTS_PER_BLOCK = 253


def management_addresses(routers: Sequence[str]) -> dict[str, str]:
    """One address per router, `127.X.Y.N` with N from 2, in a block no other lab is likely
    to draw (127.0.0.0/16 is left alone: 127.0.0.1 and 127.0.1.1 are the host's own names)."""
    if len(routers) > HOSTS_PER_BLOCK:
        raise FrrLabError(f"management addresses: at most {HOSTS_PER_BLOCK} routers per lab")
    block = f"127.{1 + secrets.randbelow(254)}.{secrets.randbelow(256)}"
    return {router: f"{block}.{n}" for n, router in enumerate(routers, start=FIRST_HOST)}


def account_files(folder: Path, lab_user: str, login: SshLogin = KIND_LOGIN) -> Path:
    """Write the routers' passwd and group (the host's, with `login` added under the lab user's
    uid and the frrvty group) and a shadow holding `login` alone (no host password hash is
    copied) into `folder/accounts`; that folder."""
    passwd = _host_lines("passwd")
    if any(line.partition(":")[0] == login.username for line in passwd):
        raise FrrLabError(f"the host already has a user {login.username!r}")
    uid = pwd.getpwnam(lab_user).pw_uid
    gid = grp.getgrnam(VTY_GROUP).gr_gid
    hashed = run(
        ["openssl", "passwd", "-6", "-stdin"], stdin=login.password, what="hashing the login"
    ).strip()
    files = {
        "passwd": [*passwd, f"{login.username}:x:{uid}:{gid}:{USER_MARK}:/nonexistent:/bin/sh"],
        "shadow": [f"{login.username}:{hashed}:20000:0:99999:7:::"],
        "group": [_with_member(line, login.username) for line in _host_lines("group")],
    }
    accounts = folder / "accounts"
    accounts.mkdir(mode=0o700)
    for name, lines in files.items():
        path = accounts / name
        path.touch(mode=0o600 if name == "shadow" else 0o644)
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return accounts


def _host_lines(name: str) -> list[str]:
    return Path("/etc", name).read_text(encoding="utf-8").splitlines()


def mount_accounts(zebra_pid: int, accounts: Path) -> None:
    """Bind the account files over /etc's inside the router's mount namespace (private to it)."""
    for name in ACCOUNT_FILES:
        run(
            [
                "nsenter",
                "-t",
                str(zebra_pid),
                "-m",
                "mount",
                "--bind",
                str(accounts / name),
                f"/etc/{name}",
            ],
            what=f"mounting the routers' /etc/{name}",
        )


def _with_member(line: str, user: str) -> str:
    """The group line, with `user` added when it is the frrvty group's."""
    fields = line.split(":")
    if fields[0] != VTY_GROUP or len(fields) != 4:
        return line
    members = [member for member in fields[3].split(",") if member]
    return ":".join([*fields[:3], ",".join([*members, user])])
