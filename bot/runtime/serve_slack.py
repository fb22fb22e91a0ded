"""`labbot serve` for Slack: settings → a checked `SlackAdapter`.

Socket Mode (SLACK_APP_TOKEN) is the default; `--http` serves bolt's /slack/events and verifies
every request with SLACK_SIGNING_SECRET, beside /healthz (the database answers) and /metrics.
The bot token is checked with auth.test before serving, so a wrong token or an unreachable
SLACK_API_URL is one clear line, not a traceback later.
"""

from __future__ import annotations

import aiohttp
from slack_sdk.errors import SlackApiError

from adapters.chat import ChatAdapter
from adapters.slack.adapter import SlackAdapter, slack_adapter
from adapters.slack.transport import OpsEndpoints
from base.errors import ConfigError
from bot.decisions.metrics import process_metrics
from bot.runtime.health import DatabaseHealth
from bot.settings import Settings, secret_value
from storage.db import make_engine
from storage.deliveries import DeliveryStore

NEEDS_BOT_TOKEN = "SLACK_BOT_TOKEN: set the bot token (xoxb-…) from the app's OAuth page"
NEEDS_APP_TOKEN = (
    "SLACK_APP_TOKEN: set an app-level token (xapp-…, scope connections:write) for Socket Mode, "
    "or run `labbot serve --http` with SLACK_SIGNING_SECRET"
)
NEEDS_SIGNING_SECRET = (
    "SLACK_SIGNING_SECRET: HTTP mode verifies every request; copy it from the app's "
    "Basic Information page"
)


def build(settings: Settings, *, http: bool, host: str, port: int) -> SlackAdapter:
    bot_token = secret_value(settings.slack_bot_token)
    if not bot_token:
        raise ConfigError(NEEDS_BOT_TOKEN)
    if http and not settings.slack_signing_secret:
        raise ConfigError(NEEDS_SIGNING_SECRET)
    if not http and not settings.slack_app_token:
        raise ConfigError(NEEDS_APP_TOKEN)
    return slack_adapter(
        bot_token=bot_token,
        api_url=settings.slack_api_url,
        app_token=secret_value(settings.slack_app_token),
        signing_secret=secret_value(settings.slack_signing_secret),
        http=http,
        host=host,
        port=port,
        ops=ops_endpoints(settings) if http else None,
        deliveries=DeliveryStore(make_engine(settings.database_url)).first_time,
    )


def ops_endpoints(settings: Settings) -> OpsEndpoints:
    health = DatabaseHealth(settings.database_url)
    return OpsEndpoints(health=health.problem, metrics=process_metrics().exposition)


async def check_token(adapter: SlackAdapter, api_url: str) -> None:
    try:
        await adapter.client.auth_test()
    except SlackApiError as exc:
        error = exc.response.get("error", "refused")
        raise ConfigError(f"SLACK_BOT_TOKEN: Slack refused the bot token ({error})") from None
    except aiohttp.ClientError as exc:
        raise ConfigError(f"SLACK_API_URL: cannot reach {api_url}: {exc}") from None


async def make_adapter(settings: Settings, *, http: bool, host: str, port: int) -> ChatAdapter:
    adapter = build(settings, http=http, host=host, port=port)
    await check_token(adapter, settings.slack_api_url)
    return adapter
