"""The ack front in Socket Mode: it holds the websocket (slack_sdk's Socket Mode client, as
bolt's handler does: apps.connections.open with the app-level token, Slack's hello, a new
connection when Slack asks with a disconnect message), acks each envelope by its id as it
arrives and forwards its payload to the bot's process, signed with this run's secret."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import Any

import aiohttp
from slack_sdk.errors import SlackApiError
from slack_sdk.socket_mode.aiohttp import SocketModeClient
from slack_sdk.socket_mode.async_client import AsyncBaseSocketModeClient
from slack_sdk.socket_mode.request import SocketModeRequest
from slack_sdk.socket_mode.response import SocketModeResponse
from slack_sdk.web.async_client import AsyncWebClient

from adapters.slack.front_forwarding import Delivery, Forwarder, FrontSettings
from adapters.slack.signed import JSON

log = logging.getLogger(__name__)

HELLO_SECONDS = 30  # Slack says hello at once; a loaded machine may take its time


class SocketModeDoor:
    """Slack's envelopes on the websocket this process holds."""

    port = 0  # no port of its own: the app connects out

    def __init__(self, settings: FrontSettings, forwarder: Forwarder) -> None:
        self.settings = settings
        self.forwarder = forwarder
        self._hello = asyncio.Event()
        api_url = settings.api_url if settings.api_url.endswith("/") else settings.api_url + "/"
        self.client = SocketModeClient(
            settings.app_token, logger=log, web_client=AsyncWebClient(base_url=api_url)
        )
        self.client.message_listeners.append(self._message)
        self.client.socket_mode_request_listeners.append(self._envelope)

    async def open(self) -> str | None:
        """Connect and wait for Slack's hello; a refused token, an unreachable Web API or no
        connection within HELLO_SECONDS is one line naming the setting."""
        try:  # the first URL asked here: slack_sdk would log the refusal besides
            opened = await self.client.web_client.apps_connections_open(
                app_token=self.settings.app_token
            )
        except SlackApiError as exc:
            await self.close()
            error = exc.response.get("error", "refused")
            return f"SLACK_APP_TOKEN: Slack refused the app-level token ({error})"
        except aiohttp.ClientError as exc:
            await self.close()
            return f"SLACK_API_URL: cannot reach {self.settings.api_url}: {exc}"
        self.client.wss_uri = opened["url"]
        try:
            await asyncio.wait_for(self._connected(), HELLO_SECONDS)
        except TimeoutError:
            await self.close()
            return f"SLACK_APP_TOKEN: Slack opened no Socket Mode connection in {HELLO_SECONDS} s"
        return None

    async def _connected(self) -> None:
        await self.client.connect()  # type: ignore[no-untyped-call]  # tries again on failure
        await self._hello.wait()

    async def close(self) -> None:
        await self.client.close()  # type: ignore[no-untyped-call]

    async def _message(
        self, client: AsyncBaseSocketModeClient, message: dict[str, Any], raw: str | None
    ) -> None:
        """Slack's own messages: hello on each connection, disconnect before it closes one
        (the client then opens a new connection)."""
        kind = message.get("type")
        if kind == "hello":
            self._hello.set()
        elif kind == "disconnect":
            log.info(
                "Slack closes the Socket Mode connection (%s): opening a new one",
                message.get("reason"),
            )

    async def _envelope(
        self, client: AsyncBaseSocketModeClient, request: SocketModeRequest
    ) -> None:
        """Ack the envelope by its id (a full queue: with the busy note, or not at all for an
        event, so that Slack sends it again), then the bot's process gets its payload."""
        raw = json.dumps(request.payload).encode()
        headers = {"Content-Type": JSON}
        if request.retry_attempt:
            headers["X-Slack-Retry-Num"] = str(request.retry_attempt)
            headers["X-Slack-Retry-Reason"] = request.retry_reason or ""
        busy = self.forwarder.take(request.payload, Delivery(raw, headers, time.time()))
        if busy is not None and busy.ack is None:
            return
        carried = busy.ack if busy is not None and request.accepts_response_payload else None
        ack = SocketModeResponse(envelope_id=request.envelope_id, payload=carried or None)
        await client.send_socket_mode_response(ack)
