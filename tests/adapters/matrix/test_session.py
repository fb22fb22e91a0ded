"""Logging the bot in through `bot.runtime.serve_matrix.make_adapter`, against the real Synapse."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from base.errors import ConfigError
from bot.runtime.serve_matrix import make_adapter
from bot.settings import Settings, load_settings
from tests.fakes.synapse import MatrixAccount, Synapse

pytestmark = pytest.mark.synapse


def settings(synapse: Synapse, account: MatrixAccount, tmp_path: Path, **extra: str) -> Settings:
    return load_settings(
        data_dir=tmp_path,
        matrix_homeserver=synapse.url,
        matrix_user_id=account.user_id,
        **extra,
    )


async def test_password_login_keeps_one_device_across_restarts(
    synapse: Synapse, bot_account: MatrixAccount, tmp_path: Path
) -> None:
    configured = settings(synapse, bot_account, tmp_path, matrix_password=bot_account.password)
    devices = []
    for _ in range(2):
        adapter = await make_adapter(configured, http=False, host="", port=0)
        devices.append(adapter._client.device_id)
        await adapter.close()
    session = tmp_path / "matrix" / "session.json"
    assert devices[0] == devices[1] == json.loads(session.read_text())["device_id"]
    assert stat.S_IMODE(session.stat().st_mode) == 0o600


async def test_an_access_token_is_used_as_given(
    synapse: Synapse, bot_account: MatrixAccount, tmp_path: Path
) -> None:
    configured = settings(
        synapse, bot_account, tmp_path, matrix_access_token=bot_account.access_token
    )
    adapter = await make_adapter(configured, http=False, host="", port=0)
    await adapter.close()
    assert adapter._client.device_id == bot_account.device_id
    assert adapter.bot.user_id == bot_account.user_id


@pytest.mark.parametrize(
    ("extra", "names"),
    [
        ({"matrix_password": "wrong"}, "MATRIX_PASSWORD"),
        ({"matrix_access_token": "syt_nonsense"}, "MATRIX_ACCESS_TOKEN"),
        ({}, "MATRIX_ACCESS_TOKEN or MATRIX_PASSWORD"),
    ],
)
async def test_bad_credentials_are_one_line_naming_the_setting(
    synapse: Synapse, bot_account: MatrixAccount, tmp_path: Path, extra: dict[str, str], names: str
) -> None:
    with pytest.raises(ConfigError) as error:
        await make_adapter(
            settings(synapse, bot_account, tmp_path, **extra), http=False, host="", port=0
        )
    assert str(error.value).startswith(names)
    assert "\n" not in str(error.value)


async def test_an_unreachable_homeserver_names_the_url(tmp_path: Path) -> None:
    configured = load_settings(
        data_dir=tmp_path,
        matrix_homeserver="http://127.0.0.1:9",
        matrix_user_id="@labbot:localhost",
        matrix_password="x",
    )
    with pytest.raises(
        ConfigError, match=r"^MATRIX_HOMESERVER: cannot reach http://127\.0\.0\.1:9"
    ):
        await make_adapter(configured, http=False, host="", port=0)
