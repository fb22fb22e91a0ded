"""A real Synapse homeserver on 127.0.0.1 for the Matrix tests and benchmark.

Synapse lives in its own virtualenv (`.ci/synapse.sh` creates it); `LABBOT_TEST_SYNAPSE` names
that venv's python (default: `<repo>/.venv-synapse/bin/python` when it exists). The homeserver
gets a throwaway directory with a hand-written config: SQLite, a client listener only (no
federation listener, empty federation whitelist, no key servers), shared-secret registration,
rate limits out of the way, bcrypt rounds low, no stats reporting.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import yaml

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_PYTHON = REPO_ROOT / ".venv-synapse" / "bin" / "python"
MISSING = (
    'Synapse is not installed for the tests: run `eval "$(.ci/synapse.sh)"` (it creates '
    ".venv-synapse and prints LABBOT_TEST_SYNAPSE=<its python>)"
)
START_TIMEOUT_SECONDS = 90.0
# Generous enough that no test or the 50-decision benchmark is ever throttled.
_UNLIMITED = {"per_second": 10000, "burst_count": 100000}
MAX_UPLOAD_BYTES = 2 * 1024 * 1024  # the media repository refuses a bigger file (M_TOO_LARGE)


@dataclass(frozen=True)
class MatrixAccount:
    user_id: str
    password: str
    access_token: str
    device_id: str


def synapse_python() -> Path:
    """The Synapse venv's python, or a failure that says how to create it."""
    configured = os.environ.get("LABBOT_TEST_SYNAPSE")
    python = Path(configured) if configured else DEFAULT_PYTHON
    if not python.is_file():
        raise RuntimeError(f"{MISSING}; not found: {python}")
    return python


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def homeserver_config(directory: Path, port: int, shared_secret: str) -> dict[str, object]:
    return {
        "server_name": "localhost",
        "pid_file": str(directory / "homeserver.pid"),
        "public_baseurl": f"http://127.0.0.1:{port}/",
        "listeners": [
            {
                "port": port,
                "bind_addresses": ["127.0.0.1"],
                "type": "http",
                "tls": False,
                "x_forwarded": False,
                "resources": [{"names": ["client", "media"], "compress": False}],
            }
        ],
        "database": {"name": "sqlite3", "args": {"database": str(directory / "homeserver.db")}},
        "log_config": str(directory / "log.yaml"),
        "media_store_path": str(directory / "media"),
        "enable_media_repo": True,  # pictures posted in threads (m.image)
        "max_upload_size": MAX_UPLOAD_BYTES,
        "url_preview_enabled": False,
        "registration_shared_secret": shared_secret,
        "enable_registration": False,
        "macaroon_secret_key": secrets.token_hex(16),
        "form_secret": secrets.token_hex(16),
        "signing_key_path": str(directory / "localhost.signing.key"),
        "report_stats": False,
        "trusted_key_servers": [],
        "suppress_key_server_warning": True,
        "federation_domain_whitelist": [],
        "bcrypt_rounds": 4,
        "presence": {"enabled": False},
        "rc_message": _UNLIMITED,
        "rc_registration": _UNLIMITED,
        "rc_room_creation": _UNLIMITED,
        "rc_login": {
            "address": _UNLIMITED,
            "account": _UNLIMITED,
            "failed_attempts": _UNLIMITED,
        },
        "rc_joins": {"local": _UNLIMITED, "remote": _UNLIMITED},
        "rc_joins_per_room": _UNLIMITED,
        "rc_invites": {
            "per_room": _UNLIMITED,
            "per_user": _UNLIMITED,
            "per_issuer": _UNLIMITED,
        },
        "rc_admin_redaction": _UNLIMITED,
        "rc_3pid_validation": _UNLIMITED,
        "rc_presence": {"per_user": _UNLIMITED},
    }


def log_config(directory: Path) -> dict[str, object]:
    """Warnings only, to a file in the server's directory (read it when a test fails)."""
    return {
        "version": 1,
        "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
        "handlers": {
            "file": {
                "class": "logging.FileHandler",
                "filename": str(directory / "homeserver.log"),
                "formatter": "plain",
            }
        },
        "root": {"level": "WARNING", "handlers": ["file"]},
        "disable_existing_loggers": False,
    }


class Synapse:
    """One running homeserver; `register` creates accounts through the shared-secret API."""

    def __init__(self, directory: Path, port: int, shared_secret: str) -> None:
        self.directory = directory
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        self._secret = shared_secret
        self._process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        python = synapse_python()
        config = self.directory / "homeserver.yaml"
        config.write_text(
            yaml.safe_dump(homeserver_config(self.directory, self.port, self._secret))
        )
        (self.directory / "log.yaml").write_text(yaml.safe_dump(log_config(self.directory)))
        base = [str(python), "-m", "synapse.app.homeserver", "--config-path", str(config)]
        subprocess.run([*base, "--generate-keys"], check=True, capture_output=True, timeout=120)
        output = (self.directory / "stdout.log").open("wb")
        self._process = subprocess.Popen(
            base, stdout=output, stderr=subprocess.STDOUT, cwd=self.directory
        )
        self._wait_ready()

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        while time.monotonic() < deadline:
            assert self._process is not None
            if self._process.poll() is not None:
                raise RuntimeError(f"Synapse exited at start: {self.tail_log()}")
            try:
                if httpx.get(f"{self.url}/_matrix/client/versions", timeout=2).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"Synapse not ready in {START_TIMEOUT_SECONDS}s: {self.tail_log()}")

    def tail_log(self, lines: int = 30) -> str:
        logs = [self.directory / "stdout.log", self.directory / "homeserver.log"]
        text = "\n".join(p.read_text(errors="replace") for p in logs if p.is_file())
        return "\n".join(text.splitlines()[-lines:])

    def stop(self) -> None:
        if self._process is None:
            return
        self._process.terminate()
        try:
            self._process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait(timeout=10)
        self._process = None

    def register(self, username: str, password: str = "", *, admin: bool = False) -> MatrixAccount:
        """Create an account with the shared-secret admin API (HMAC-SHA1 over the nonce)."""
        password = password or secrets.token_hex(8)
        endpoint = f"{self.url}/_synapse/admin/v1/register"
        nonce = httpx.get(endpoint, timeout=10).json()["nonce"]
        message = "\x00".join([nonce, username, password, "admin" if admin else "notadmin"])
        mac = hmac.new(self._secret.encode(), message.encode(), hashlib.sha1).hexdigest()
        body = {
            "nonce": nonce,
            "username": username,
            "password": password,
            "admin": admin,
            "mac": mac,
        }
        response = httpx.post(endpoint, json=body, timeout=30)
        response.raise_for_status()
        data = response.json()
        return MatrixAccount(data["user_id"], password, data["access_token"], data["device_id"])

    def login(self, account: MatrixAccount) -> MatrixAccount:
        """Log in again: the same account on a new device (a second client of that person)."""
        body = {
            "type": "m.login.password",
            "identifier": {"type": "m.id.user", "user": account.user_id},
            "password": account.password,
        }
        response = httpx.post(f"{self.url}/_matrix/client/v3/login", json=body, timeout=30)
        response.raise_for_status()
        data = response.json()
        return MatrixAccount(
            data["user_id"], account.password, data["access_token"], data["device_id"]
        )


@contextmanager
def running_synapse() -> Iterator[Synapse]:
    """Start a homeserver in a temporary directory; stop it and remove the directory on exit."""
    with tempfile.TemporaryDirectory(prefix="labbot-synapse-") as tmp:
        server = Synapse(Path(tmp), free_port(), secrets.token_hex(16))
        try:
            server.start()
            yield server
        finally:
            server.stop()
