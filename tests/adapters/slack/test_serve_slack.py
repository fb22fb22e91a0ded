"""`labbot serve` for Slack: settings become a checked adapter, or one clear line."""

from __future__ import annotations

import pytest

from adapters.slack.transport import HttpTransport, SocketModeTransport
from base.errors import ConfigError
from bot.serve_slack import make_adapter
from bot.settings import load_settings
from tests.fakes.slack_api import APP_TOKEN, BOT_TOKEN, SIGNING_SECRET, SlackApiStandIn


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
