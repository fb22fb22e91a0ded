"""`labbot serve` for Slack: settings become a checked adapter, or one clear line."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

from adapters.slack.transport import HttpTransport, SocketModeTransport
from base.errors import ConfigError
from bot.messages.general import HELP_INTRO
from bot.runtime.serve_slack import make_adapter
from bot.settings import load_settings
from tests.adapters.slack.payloads import mention
from tests.fakes.slack_api import APP_TOKEN, BOT_TOKEN, SIGNING_SECRET, SlackApiStandIn

SETTINGS_PREFIXES = ("LABBOT_", "SLACK_", "MATRIX_", "OPENAI_", "GNS3_")
STARTUP_SECONDS = 180  # a loaded machine takes its time to import the bot


def _settings(api_url: str, **overrides: str) -> object:
    values = {
        "SLACK_BOT_TOKEN": BOT_TOKEN,
        "SLACK_APP_TOKEN": APP_TOKEN,
        "SLACK_SIGNING_SECRET": SIGNING_SECRET,
        "SLACK_API_URL": api_url,
    }
    return load_settings(**(values | overrides))


async def test_socket_mode_is_the_default_and_http_mode_on_request(
    slack_api: SlackApiStandIn,
) -> None:
    settings = _settings(slack_api.base_url)
    socket = await make_adapter(settings, http=False, host="127.0.0.1", port=0)  # type: ignore[arg-type]
    http = await make_adapter(settings, http=True, host="127.0.0.1", port=0)  # type: ignore[arg-type]
    assert isinstance(socket.transport, SocketModeTransport)  # type: ignore[attr-defined]
    assert isinstance(http.transport, HttpTransport)  # type: ignore[attr-defined]
    assert [c.method for c in slack_api.calls] == ["auth.test", "auth.test"]


@pytest.mark.parametrize(
    ("overrides", "http", "named"),
    [
        ({"SLACK_APP_TOKEN": None}, False, "SLACK_APP_TOKEN"),
        ({"SLACK_SIGNING_SECRET": None}, True, "SLACK_SIGNING_SECRET"),
        (
            {"SLACK_BOT_TOKEN": "xoxb-wrong"},
            False,
            "SLACK_BOT_TOKEN: Slack refused the bot token (invalid_auth)",
        ),
        ({"SLACK_API_URL": "http://127.0.0.1:9/api/"}, False, "SLACK_API_URL: cannot reach"),
    ],
)
async def test_a_wrong_setting_is_one_line_naming_it(
    slack_api: SlackApiStandIn, overrides: dict, http: bool, named: str
) -> None:
    settings = _settings(slack_api.base_url, **overrides)
    with pytest.raises(ConfigError) as error:
        await make_adapter(settings, http=http, host="127.0.0.1", port=0)  # type: ignore[arg-type]
    assert str(error.value).startswith(named)
    assert "\n" not in str(error.value)


async def serve_socket_mode(
    tmp_path: Path, api: SlackApiStandIn, app_token: str
) -> asyncio.subprocess.Process:
    """`labbot serve` in Socket Mode against the stand-in (an inventory it can read; its only
    router needs not answer), with only these settings."""
    hosts = "R1:\n  hostname: 127.0.0.1\n  port: 9\n  platform: cisco_ios\n"
    (tmp_path / "hosts.yaml").write_text(hosts)
    kept = {k: v for k, v in os.environ.items() if not k.startswith(SETTINGS_PREFIXES)}
    settings = {
        "SLACK_BOT_TOKEN": BOT_TOKEN,
        "SLACK_APP_TOKEN": app_token,
        "SLACK_API_URL": api.base_url,
        "LABBOT_DATA_DIR": str(tmp_path),
        "LABBOT_INVENTORY": "hosts.yaml",
    }
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        "serve",
        cwd=tmp_path,
        env=kept | settings,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )


async def test_serve_in_socket_mode_answers_through_the_front_and_stops_on_sigterm(
    tmp_path: Path, slack_api: SlackApiStandIn
) -> None:
    serving = await serve_socket_mode(tmp_path, slack_api, APP_TOKEN)
    try:
        await slack_api.wait_for(lambda: slack_api.socket.connections, within=STARTUP_SECONDS)
        body = mention("help")
        await slack_api.send_socket("events_api", body)
        thread = body["event"]["ts"]
        answer = await slack_api.wait_for(lambda: slack_api.thread("C1", thread), within=60)
    finally:
        serving.terminate()
        _, err = await asyncio.wait_for(serving.communicate(), 60)
    assert answer[0].text.startswith(
        HELP_INTRO.splitlines()[0]
    )  # the help, in the mention's thread
    assert serving.returncode == 0 and "Traceback" not in err.decode()
    assert [c.method for c in slack_api.calls].count("apps.connections.open") == 1


async def test_serve_with_a_refused_app_token_is_one_line(
    tmp_path: Path, slack_api: SlackApiStandIn
) -> None:
    serving = await serve_socket_mode(tmp_path, slack_api, "xapp-refused")
    _, err = await asyncio.wait_for(serving.communicate(), STARTUP_SECONDS)
    assert serving.returncode == 2
    lines = [line for line in err.decode().splitlines() if line.startswith("labbot: ")]
    assert lines == ["labbot: SLACK_APP_TOKEN: Slack refused the app-level token (invalid_auth)"]
    assert "Traceback" not in err.decode()
