"""A real gns3-server (from PyPI, set up by .ci/gns3.sh) on 127.0.0.1, its files in a tmp dir.

Nodes are created through its REST API but never started: qemu nodes only need a qemu binary to
exist at creation, so a stand-in script is put on PATH, and disk images are empty files.
"""

from __future__ import annotations

import os
import random
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

USER, PASSWORD = "admin", "gns3-test-pw"
IMAGES = {
    "vios": "vios-adventerprisek9-m.vmdk.SPA.156-1.T",
    "veos": "vEOS-lab-4.28.0F.vmdk",
    "ubuntu": "ubuntu-22.04.qcow2",
}
FAKE_QEMU = '#!/bin/sh\necho "QEMU emulator version 8.2.0"\n'


@dataclass
class GNS3Server:
    url: str
    api: str  # "v2" or "v3"
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def user(self) -> str | None:
        return USER if self.api == "v3" else None

    @property
    def password(self) -> str | None:
        return PASSWORD if self.api == "v3" else None

    def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        response = httpx.request(
            method, f"{self.url}/{self.api}{path}", json=body, headers=self.headers, timeout=30
        )
        assert response.status_code < 400, f"{method} {path}: {response.text}"
        return response.json() if response.content else None

    def qemu_node(self, project_id: str, name: str, image: str) -> dict[str, Any]:
        properties = {"hda_disk_image": IMAGES[image], "adapters": 4, "platform": "x86_64"}
        body = {"name": name, "node_type": "qemu", "compute_id": "local"}
        return self.call(
            "POST",
            f"/projects/{project_id}/nodes",
            body | {"console_type": "telnet", "properties": properties},
        )

    def link(
        self, project_id: str, a: dict[str, Any], a_adapter: int, b: dict[str, Any], b_adapter: int
    ) -> None:
        ends = [
            {"node_id": a["node_id"], "adapter_number": a_adapter, "port_number": 0},
            {"node_id": b["node_id"], "adapter_number": b_adapter, "port_number": 0},
        ]
        self.call("POST", f"/projects/{project_id}/links", {"nodes": ends})


def gns3server_executable(api: str) -> str:
    variable = f"LABBOT_TEST_GNS3{api.upper()}"
    path = os.environ.get(variable)
    if not path or not Path(path).is_file():
        pytest.fail(
            f"{variable} is not set to a gns3server executable: run "
            f'`eval "$(.ci/gns3.sh)"` (creates .venv-gns3v2 / .venv-gns3v3 and prints the exports)'
        )
    return path


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _write_home(home: Path, port: int) -> Path:
    (home / "bin").mkdir(parents=True)
    qemu = home / "bin" / "qemu-system-x86_64"
    qemu.write_text(FAKE_QEMU)
    qemu.chmod(0o755)
    (home / "images" / "QEMU").mkdir(parents=True)
    for image in IMAGES.values():
        (home / "images" / "QEMU" / image).write_bytes(b"\0" * 512)
    console_base = random.randrange(20000, 40000, 200)
    config = home / "gns3_server.conf"
    config.write_text(
        f"[Server]\nhost = 127.0.0.1\nport = {port}\nreport_errors = False\n"
        f"projects_path = {home}/projects\nimages_path = {home}/images\n"
        f"appliances_path = {home}/appliances\nsymbols_path = {home}/symbols\n"
        f"configs_path = {home}/configs\n"
        f"console_start_port_range = {console_base}\n"
        f"console_end_port_range = {console_base + 199}\n"
        f"[Controller]\ndefault_admin_username = {USER}\ndefault_admin_password = {PASSWORD}\n"
        f"jwt_secret_key = {os.urandom(16).hex()}\n"
    )
    return config


@contextmanager
def running_gns3(api: str, home: Path) -> Iterator[GNS3Server]:
    executable = gns3server_executable(api)
    port = _free_port()
    config = _write_home(home, port)
    env = os.environ | {"HOME": str(home), "PATH": f"{home}/bin:{os.environ['PATH']}"}
    command = [
        executable,
        "--config",
        str(config),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--local",
        "--log",
        str(home / "server.log"),
    ]
    process = subprocess.Popen(
        command, cwd=home, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT
    )
    try:
        server = GNS3Server(url=f"http://127.0.0.1:{port}", api=api)
        _wait_until_up(server, process, home)
        if api == "v3":
            token = httpx.post(
                f"{server.url}/v3/access/users/login", data={"username": USER, "password": PASSWORD}
            ).json()
            server.headers = {"Authorization": f"Bearer {token['access_token']}"}
        yield server
    finally:
        process.terminate()
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _wait_until_up(server: GNS3Server, process: subprocess.Popen[bytes], home: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            log_file = home / "server.log"
            log = log_file.read_text(errors="replace")[-2000:] if log_file.exists() else ""
            pytest.fail(f"gns3server exited with {process.returncode}:\n{log}")
        try:
            if httpx.get(f"{server.url}/{server.api}/version", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    pytest.fail("gns3server did not answer within 60 s")
