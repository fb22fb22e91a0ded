"""The chat part of the doctor: Slack's bot token through `auth.test` (at SLACK_API_URL) and a
serving mode; Matrix's `whoami` with the configured or saved token, and its E2EE key store."""

from __future__ import annotations

from pathlib import Path

import aiohttp
from nio import AsyncClient, WhoamiError, WhoamiResponse
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from adapters.matrix.e2ee import E2EE_AVAILABLE, store_file
from adapters.matrix.session import Credentials, load_session
from base.errors import ConfigError
from bot import messages
from bot.check.findings import Finding, fail, off, ok
from bot.runtime.serve_matrix import STORE_SUBDIR, credentials_from
from bot.settings import Settings, secret_value

SECONDS = 10.0


async def slack_findings(settings: Settings) -> list[Finding]:
    token = secret_value(settings.slack_bot_token)
    if not token:
        return [off("slack", messages.SLACK_OFF)]
    url = settings.slack_api_url
    client = AsyncWebClient(token=token, base_url=url, timeout=int(SECONDS))
    try:
        answer = await client.auth_test()
        said = messages.SLACK_OK.format(user=answer["user"], team=answer["team"], url=url)
        findings = [ok("slack", said)]
    except SlackApiError as exc:
        error = exc.response.get("error", "refused")
        said = messages.SLACK_REFUSED.format(url=url, error=error)
        findings = [fail("slack", said, messages.SLACK_REFUSED_FIX)]
    except (aiohttp.ClientError, TimeoutError) as exc:
        said = messages.SLACK_UNREACHABLE.format(url=url, error=exc or type(exc).__name__)
        findings = [fail("slack", said, messages.SLACK_UNREACHABLE_FIX)]
    if not settings.slack_app_token and not settings.slack_signing_secret:
        findings.append(fail("slack", messages.SLACK_NO_MODE, messages.SLACK_NO_MODE_FIX))
    return findings


async def matrix_findings(settings: Settings) -> list[Finding]:
    if not settings.matrix_homeserver:
        return [off("matrix", messages.MATRIX_OFF)]
    try:
        credentials = credentials_from(settings)
    except ConfigError as exc:
        return [fail("matrix", str(exc))]
    store_dir = settings.data_dir.resolve() / STORE_SUBDIR
    saved = load_session(store_dir, credentials) if store_dir.is_dir() else {}
    token = credentials.access_token or saved.get("access_token")
    if not token:
        return [ok("matrix", messages.MATRIX_PASSWORD_ONLY), _store(store_dir, "", credentials)]
    found = await _whoami(credentials, token)
    saved_device = saved.get("device_id", "")  # a saved session's device has a key store
    return [_whoami_finding(credentials, found), _store(store_dir, saved_device, credentials)]


async def _whoami(credentials: Credentials, token: str) -> WhoamiResponse | WhoamiError | str:
    client = AsyncClient(credentials.homeserver, credentials.user_id)
    client.access_token = token
    try:
        return await client.whoami()
    except (aiohttp.ClientError, TimeoutError) as exc:
        return str(exc) or type(exc).__name__
    finally:
        await client.close()


def _whoami_finding(credentials: Credentials, found: WhoamiResponse | WhoamiError | str) -> Finding:
    homeserver = credentials.homeserver
    if isinstance(found, WhoamiResponse):
        said = messages.MATRIX_OK.format(
            user=found.user_id, device=found.device_id, homeserver=homeserver
        )
        return ok("matrix", said)
    if isinstance(found, str):
        said = messages.MATRIX_UNREACHABLE.format(homeserver=homeserver, error=found)
        return fail("matrix", said, messages.MATRIX_UNREACHABLE_FIX)
    said = messages.MATRIX_REFUSED.format(homeserver=homeserver, error=found.status_code)
    return fail("matrix", said, messages.MATRIX_REFUSED_FIX)


def _store(folder: Path, device: str, credentials: Credentials) -> Finding:
    """The saved session's key store beside it (only where encryption is installed); none
    before the first login."""
    if not E2EE_AVAILABLE:
        return off("matrix", messages.MATRIX_NO_E2EE)
    if not device:
        state = messages.MATRIX_STORE_NEW
        return ok("matrix", messages.MATRIX_STORE.format(path=folder, state=state))
    if store_file(folder, credentials.user_id, device).is_file():
        state = messages.MATRIX_STORE_KEYS.format(device=device)
        return ok("matrix", messages.MATRIX_STORE.format(path=folder, state=state))
    state = messages.MATRIX_STORE_LOST.format(device=device)
    said = messages.MATRIX_STORE.format(path=folder, state=state)
    return fail("matrix", said, messages.MATRIX_STORE_LOST_FIX)
