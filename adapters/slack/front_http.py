"""The ack front in HTTP mode: Slack's POSTs checked (signature and replay window, then the
body's shape), answered here (url_verification, ssl_check) or acked and forwarded; anything
else (/healthz, /metrics, a wrong path) is passed on to the bot's process."""

from __future__ import annotations

import logging

from aiohttp import web

from adapters.slack.front_forwarding import Delivery, Forwarder, FrontSettings
from adapters.slack.signed import Refused, signed_body

log = logging.getLogger(__name__)

FORWARDED = (
    "Content-Type",
    "X-Slack-Request-Timestamp",
    "X-Slack-Signature",
    "X-Slack-Retry-Num",
    "X-Slack-Retry-Reason",
)


class HttpDoor:
    """Slack's requests on host:port (port 0 picks a free one; `port` holds the bound one)."""

    def __init__(self, settings: FrontSettings, forwarder: Forwarder) -> None:
        self.settings = settings
        self.forwarder = forwarder
        self.port = settings.port
        self._runner: web.AppRunner | None = None

    async def open(self) -> str | None:
        web_app = web.Application()
        web_app.router.add_post(self.settings.path, self.slack)
        web_app.router.add_route("*", "/{tail:.*}", self.passed_on)
        self._runner = web.AppRunner(web_app, access_log=None)
        await self._runner.setup()
        try:
            await web.TCPSite(self._runner, self.settings.host, self.settings.port).start()
        except OSError as exc:
            await self._runner.cleanup()
            where = f"{self.settings.host}:{self.settings.port}"
            return f"--port: cannot listen on {where}: {exc.strerror or exc} (choose another port)"
        self.port = int(self._runner.addresses[0][1])
        return None

    async def close(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    async def slack(self, request: web.Request) -> web.StreamResponse:
        """Slack's POST: refused, answered here (url_verification), or acked and queued."""
        raw = await request.read()
        try:
            body = signed_body(
                self.settings.signing_secret, raw, request.headers, request.content_type
            )
        except Refused as refused:
            log.warning("refused %s from %s: %s", refused.what, request.remote, refused)
            return web.Response(status=refused.status, text=refused.text)
        if body.get("type") == "url_verification":
            return web.json_response({"challenge": body.get("challenge", "")})
        if body.get("ssl_check"):
            return web.Response()
        headers = {name: request.headers[name] for name in FORWARDED if name in request.headers}
        stamp = float(request.headers["X-Slack-Request-Timestamp"])
        busy = self.forwarder.take(body, Delivery(raw, headers, stamp))
        if busy is None or busy.ack == {}:
            return web.Response()
        if busy.ack is None:
            return web.Response(status=503, text="busy")
        return web.json_response(busy.ack)

    async def passed_on(self, request: web.Request) -> web.StreamResponse:
        """Anything else is the bot process's to answer."""
        async with self.forwarder.inside.request(
            request.method, request.path_qs, data=await request.read(), headers=request.headers
        ) as inside:
            return web.Response(
                status=inside.status,
                body=await inside.read(),
                headers={"Content-Type": inside.headers.get("Content-Type", "text/plain")},
            )
