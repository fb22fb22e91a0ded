"""Build the Matrix adapter from settings for `labbot serve` (logs in before the bot starts)."""

from __future__ import annotations

from adapters.matrix.adapter import MatrixAdapter
from adapters.matrix.session import Credentials, MatrixLoginError
from base.errors import ConfigError
from bot.settings import Settings

__all__ = ["STORE_SUBDIR", "credentials_from"]

# under LABBOT_DATA_DIR: the session (device id, token) and nio's key store survive restarts
STORE_SUBDIR = "matrix"


def credentials_from(settings: Settings) -> Credentials:
    if not settings.matrix_homeserver:
        raise ConfigError("MATRIX_HOMESERVER: set the homeserver URL, e.g. https://matrix.org")
    if not settings.matrix_user_id:
        raise ConfigError("MATRIX_USER_ID: set the bot's Matrix id, e.g. @labbot:example.org")
    token, password = settings.matrix_access_token, settings.matrix_password
    if token is None and password is None:
        raise ConfigError("MATRIX_ACCESS_TOKEN or MATRIX_PASSWORD: set one so labbot can log in")
    return Credentials(
        homeserver=settings.matrix_homeserver.rstrip("/"),
        user_id=settings.matrix_user_id,
        access_token=token.get_secret_value() if token else None,
        password=password.get_secret_value() if password else None,
    )


async def make_adapter(settings: Settings, *, http: bool, host: str, port: int) -> MatrixAdapter:
    """Matrix needs no listening port (it long-polls the homeserver): http/host/port are unused."""
    adapter = MatrixAdapter(
        credentials_from(settings),
        store_dir=settings.data_dir / STORE_SUBDIR,
        rooms=tuple(settings.matrix_rooms),
        authority_room=settings.matrix_authority_room or "",
        trust=settings.matrix_trust,
    )
    try:
        await adapter.login()
    except MatrixLoginError as exc:
        await adapter.close()
        raise ConfigError(str(exc)) from None
    return adapter
