"""Log the bot in, keeping its device across restarts.

The device id and access token are kept in `<store_dir>/session.json` (mode 0600): a restart
reuses the same device instead of adding a new one per start, and a password login after the
token was revoked asks for the same device id again. With encryption, nio's key store of that
device lies beside it; when the store is gone, a password login makes a new device (a warning,
not a failed start).
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path

from aiohttp import ClientError
from nio import AsyncClient, LoginResponse, WhoamiResponse

from adapters.matrix import texts
from adapters.matrix.e2ee import store_file

__all__ = ["Credentials", "MatrixLoginError", "load_session"]

log = logging.getLogger(__name__)
SESSION_FILE = "session.json"


class MatrixLoginError(Exception):
    """The homeserver refused the credentials or cannot be reached; the text names the fix."""


@dataclass(frozen=True)
class Credentials:
    homeserver: str
    user_id: str
    access_token: str | None = None
    password: str | None = None
    device_name: str = "labbot"


def _session_path(store_dir: Path) -> Path:
    return store_dir / SESSION_FILE


def load_session(store_dir: Path, credentials: Credentials) -> dict[str, str]:
    """The saved session of this user on this homeserver ({} when none or another account's).
    Makes the store dir: nio opens its key store there as soon as the device is known."""
    store_dir.mkdir(parents=True, exist_ok=True)
    try:
        saved = json.loads(_session_path(store_dir).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    same = saved.get("homeserver") == credentials.homeserver
    return saved if same and saved.get("user_id") == credentials.user_id else {}


def save_session(store_dir: Path, client: AsyncClient, homeserver: str) -> None:
    store_dir.mkdir(parents=True, exist_ok=True)
    path = _session_path(store_dir)
    data = {
        "homeserver": homeserver,
        "user_id": client.user_id,
        "device_id": client.device_id,
        "access_token": client.access_token,
    }
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(data, handle)


async def _whoami(client: AsyncClient) -> WhoamiResponse | None:
    response = await client.whoami()
    return response if isinstance(response, WhoamiResponse) else None


async def _use_token(client: AsyncClient, user_id: str, token: str, device_id: str) -> bool:
    # Asked before `restore_login`: with encryption that opens the device's key store, so it
    # must be given the device the token really belongs to.
    client.user_id, client.access_token = user_id, token
    whoami = await _whoami(client)
    if whoami is None:
        client.access_token = ""
        return False
    client.restore_login(whoami.user_id, whoami.device_id or device_id, token)
    return True


async def log_in(client: AsyncClient, credentials: Credentials, store_dir: Path) -> None:
    """Configured token first, then the saved session, then the password (same device id)."""
    saved = load_session(store_dir, credentials)
    if saved.get("device_id") and client.config.encryption_enabled:
        saved = _unless_store_lost(store_dir, saved, credentials)
    try:
        await _authenticate(client, credentials, saved)
    except (ClientError, TimeoutError) as exc:
        raise MatrixLoginError(
            f"MATRIX_HOMESERVER: cannot reach {credentials.homeserver} ({exc}); check the URL"
        ) from None
    save_session(store_dir, client, credentials.homeserver)
    log.info("logged in as %s (device %s)", client.user_id, client.device_id)


def _unless_store_lost(
    store_dir: Path, saved: dict[str, str], credentials: Credentials
) -> dict[str, str]:
    """The saved session, or {} (a new device) when its key store is gone and a password can
    log in again: the old device could never decrypt again, so carrying on with it helps no one."""
    store = store_file(store_dir, saved["user_id"], saved["device_id"])
    if store.is_file():
        return saved
    log.warning(texts.STORE_LOST_LOG, saved["device_id"], store_dir)
    return {} if credentials.password else saved


async def _authenticate(
    client: AsyncClient, credentials: Credentials, saved: dict[str, str]
) -> None:
    device_id = saved.get("device_id", "")
    if credentials.access_token:
        if await _use_token(client, credentials.user_id, credentials.access_token, device_id):
            return
        raise MatrixLoginError(
            f"MATRIX_ACCESS_TOKEN: the homeserver {credentials.homeserver} refused the token; "
            "create a new one (or set MATRIX_PASSWORD instead)"
        )
    if saved and await _use_token(client, credentials.user_id, saved["access_token"], device_id):
        return
    await _password_login(client, credentials, device_id)


async def _password_login(client: AsyncClient, credentials: Credentials, device_id: str) -> None:
    if not credentials.password:
        raise MatrixLoginError(
            "MATRIX_ACCESS_TOKEN or MATRIX_PASSWORD: set one so labbot can log in to Matrix"
        )
    client.user = credentials.user_id
    client.device_id = device_id or None
    response = await client.login(credentials.password, device_name=credentials.device_name)
    if not isinstance(response, LoginResponse):
        raise MatrixLoginError(
            f"MATRIX_PASSWORD: the homeserver refused the login of {credentials.user_id} "
            f"({getattr(response, 'message', response)}); check MATRIX_USER_ID and MATRIX_PASSWORD"
        )
