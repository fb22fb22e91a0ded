"""A local Slack stand-in on 127.0.0.1: both sides of the wire.

`SlackApiStandIn` is the Web API (reached through `SLACK_API_URL` / `AsyncWebClient(base_url=)`):
auth.test, users.info, usergroups.list, usergroups.users.list, chat.postMessage, chat.update,
chat.postEphemeral, views.open, views.publish, the three steps of files_upload_v2
(files.getUploadURLExternal, the upload URL, files.completeUploadExternal) and
apps.connections.open with Slack's Socket Mode side (`socket`, slack_socket_mode.py: on this
server, or served elsewhere at `socket_side`). It records every call, keeps the current
state of every message, and refuses what Slack refuses (bad token, more than 50 blocks, a section
over 3,000 characters, an update of an unknown message), and what a test makes fail (`failing`).

`SlackSender` is Slack calling the app in HTTP mode: Events API bodies, interaction payloads and
slash-command forms, signed with the signing secret the way Slack signs them.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
import urllib.parse
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from aiohttp import web
from slack_sdk.signature import SignatureVerifier

from tests.fakes.slack_socket_mode import OPEN, SEND, SocketModeStandIn

BOT_TOKEN = "xoxb-standin"
APP_TOKEN = "xapp-standin"
SIGNING_SECRET = "standin-signing-secret"
BOT_USER_ID = "UBOT"
PEOPLE = {"U1": "alice", "U2": "bob", "U3": "carol"}  # the workspace the tests run in
JSON_FIELDS = ("blocks", "files", "view", "file_uploads")
RECHECK_SECONDS = 0.2  # how often a wait reads its condition while nothing came here

Json = dict[str, Any]
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@dataclass
class Call:
    method: str
    args: Json
    token: str


@dataclass
class Posted:
    channel: str
    ts: str
    thread_ts: str | None
    text: str
    blocks: list[Json]
    updates: int = 0

    @property
    def buttons(self) -> list[Json]:
        return [e for b in self.blocks if b["type"] == "actions" for e in b["elements"]]

    @property
    def all_text(self) -> str:
        """The text a person reads: the fallback text and every block's text."""
        parts = [self.text]
        for block in self.blocks:
            if "text" in block:
                parts.append(block["text"]["text"])
            if block["type"] == "context":
                parts.extend(e.get("text", "") for e in block["elements"])
        return "\n".join(parts)


@dataclass
class SlackApiStandIn:
    users: dict[str, str] = field(default_factory=dict)  # user id -> display name
    usergroups: dict[str, list[str]] = field(default_factory=dict)  # handle -> member ids
    channels: dict[str, str] = field(default_factory=dict)  # channel id -> name (no `#`)
    bot_token: str = BOT_TOKEN
    app_token: str = APP_TOKEN
    calls: list[Call] = field(default_factory=list)
    messages: dict[str, Posted] = field(default_factory=dict)  # ts -> current state
    ephemerals: list[Json] = field(default_factory=list)
    uploads: dict[str, Json] = field(default_factory=dict)  # file id -> filename, title, content
    views: list[Json] = field(default_factory=list)
    homes: dict[str, Json] = field(default_factory=dict)  # user id -> App Home view published
    socket: SocketModeStandIn = field(default_factory=SocketModeStandIn)
    socket_side: str = ""  # a Socket Mode stand-in served elsewhere (its url), else `socket`
    responses: list[Json] = field(default_factory=list)  # posted to response_url
    # Web API method, or "upload" (the upload URL) -> the error it answers with instead
    failing: dict[str, str] = field(default_factory=dict)
    port: int = 0
    host: str = "127.0.0.1"  # containers reach it on the Docker bridge's gateway address
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    _runner: web.AppRunner | None = None
    # (channel, ts) -> ts of the messages in that thread, in the order posted: waits that read a
    # thread many times a second (50 changes at once) read its messages, not all of them
    _threads: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    _indexed: int = 0  # how many of `messages` are in _threads (tests may add some directly)
    _changes: int = 0  # requests answered and socket acks received: waits read again after one

    # --- lifecycle ----------------------------------------------------------------------------

    async def __aenter__(self) -> SlackApiStandIn:
        app = web.Application(middlewares=[self._counted])
        app.router.add_route("*", "/api/{method}", self._api)
        app.router.add_post("/upload/{file_id}", self._upload)
        self.socket.add_routes(app)
        self.socket.on_change = self._changed
        app.router.add_post("/respond/{token}", self._respond)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, 0)
        await site.start()
        self.port = self.socket.port = int(self._runner.addresses[0][1])
        self.socket.host = self.host
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.socket.close()
        assert self._runner is not None
        await self._runner.cleanup()

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/api/"

    @property
    def response_url(self) -> str:
        """What Slack puts in `response_url` of a slash command or interaction."""
        return f"http://{self.host}:{self.port}/respond/{next(self._ids)}"

    # --- what tests read ----------------------------------------------------------------------

    def called(self, method: str) -> list[Call]:
        return [c for c in self.calls if c.method == method]

    def thread(self, channel: str, thread_ts: str) -> list[Posted]:
        """Messages in a thread, root first, in the order posted, as they look now."""
        added = list(self.messages.values())[self._indexed :]  # a copy: the bench serves it
        for m in added:  # on a thread
            for key in {m.ts, m.thread_ts or m.ts}:
                self._threads.setdefault((m.channel, key), []).append(m.ts)
        self._indexed += len(added)
        return [self.messages[ts] for ts in self._threads.get((channel, thread_ts), ())]

    async def wait_for(self, predicate: Callable[[], Any], within: float = 20.0) -> Any:
        """`predicate()` once it holds: read again within 20 ms of anything the app sends here,
        and every RECHECK_SECONDS anyway (it may read something else too)."""
        deadline = time.monotonic() + within
        read_at, seen = -RECHECK_SECONDS, -1
        while (now := time.monotonic()) < deadline:
            if seen != self._changes or now - read_at >= RECHECK_SECONDS:
                read_at, seen = now, self._changes
                result = predicate()
                if result:
                    return result
            await asyncio.sleep(0.02)
        raise AssertionError(f"Slack stand-in: condition not met within {within} s")

    @web.middleware
    async def _counted(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        try:
            return await handler(request)
        finally:
            self._changed()

    def _changed(self) -> None:
        self._changes += 1

    # --- Web API ------------------------------------------------------------------------------

    async def _api(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        args: Json = dict(request.query)
        if request.content_type == "application/json":
            args.update(await request.json())
        elif request.can_read_body:
            args.update(await request.post())
        for name in JSON_FIELDS:
            if isinstance(args.get(name), str):
                args[name] = json.loads(args[name])
        token = request.headers.get("Authorization", "").removeprefix("Bearer ")
        self.calls.append(Call(method, args, token))
        expected = self.app_token if method == "apps.connections.open" else self.bot_token
        if token != expected:
            return web.json_response({"ok": False, "error": "invalid_auth"})
        handler = getattr(self, "_" + method.replace(".", "_"), None)
        if method in self.failing:
            return web.json_response({"ok": False, "error": self.failing[method]})
        if method == "apps.connections.open":
            return web.json_response({"ok": True, "url": await self._socket_url()})
        if handler is None:
            return web.json_response({"ok": False, "error": "unknown_method"})
        return web.json_response(handler(args))

    def _auth_test(self, args: Json) -> Json:
        return {
            "ok": True,
            "url": "https://lab.slack.com/",
            "team": "Lab",
            "user": "labbot",
            "team_id": "T1",
            "user_id": BOT_USER_ID,
            "bot_id": "BBOT",
        }

    def _users_info(self, args: Json) -> Json:
        user_id = args.get("user", "")
        if user_id not in self.users:
            return {"ok": False, "error": "user_not_found"}
        name = self.users[user_id]
        profile = {"display_name": name, "real_name": name.title()}
        return {"ok": True, "user": {"id": user_id, "name": name.lower(), "profile": profile}}

    def _conversations_info(self, args: Json) -> Json:
        channel = args.get("channel", "")
        if channel not in self.channels:
            return {"ok": False, "error": "channel_not_found"}
        return {"ok": True, "channel": {"id": channel, "name": self.channels[channel]}}

    def _conversations_list(self, args: Json) -> Json:
        """The channels the bot can see, a page of `limit` at a time (Slack's cursor: the
        index of the next page's first channel)."""
        listed = [{"id": c, "name": name, "is_channel": True} for c, name in self.channels.items()]
        start, limit = int(args.get("cursor") or 0), int(args.get("limit") or 100)
        page = listed[start : start + limit]
        after = start + limit
        cursor = str(after) if after < len(listed) else ""
        return {"ok": True, "channels": page, "response_metadata": {"next_cursor": cursor}}

    def _usergroups_list(self, args: Json) -> Json:
        groups = [
            {
                "id": _group_id(handle),
                "handle": handle,
                "name": handle.title(),
                "user_count": len(m),
            }
            for handle, m in self.usergroups.items()
        ]
        return {"ok": True, "usergroups": groups}

    def _usergroups_users_list(self, args: Json) -> Json:
        for handle, members in self.usergroups.items():
            if _group_id(handle) == args.get("usergroup"):
                return {"ok": True, "users": list(members)}
        return {"ok": False, "error": "no_such_subteam"}

    def _next_ts(self) -> str:
        return f"1700000000.{next(self._ids):06d}"

    def _chat_postMessage(self, args: Json) -> Json:
        error = _invalid(args)
        if error:
            return {"ok": False, "error": error}
        ts = self._next_ts()
        posted = Posted(
            args["channel"], ts, args.get("thread_ts"), args.get("text", ""), args.get("blocks", [])
        )
        self.messages[ts] = posted
        return {"ok": True, "channel": posted.channel, "ts": ts, "message": {"ts": ts}}

    def _chat_update(self, args: Json) -> Json:
        error = _invalid(args)
        posted = self.messages.get(args.get("ts", ""))
        if error or posted is None or posted.channel != args.get("channel"):
            return {"ok": False, "error": error or "message_not_found"}
        posted.text, posted.blocks = args.get("text", ""), args.get("blocks", [])
        posted.updates += 1
        return {"ok": True, "channel": posted.channel, "ts": posted.ts, "text": posted.text}

    def _chat_postEphemeral(self, args: Json) -> Json:
        error = _invalid(args) or ("" if args.get("user") else "user_not_in_channel")
        if error:
            return {"ok": False, "error": error}
        self.ephemerals.append(args)
        return {"ok": True, "message_ts": self._next_ts()}

    def _views_open(self, args: Json) -> Json:
        if not args.get("trigger_id") or not isinstance(args.get("view"), dict):
            return {"ok": False, "error": "invalid_arguments"}
        view = {**args["view"], "id": f"V{next(self._ids)}", "hash": "h1"}
        self.views.append(view)
        return {"ok": True, "view": view}

    def _views_publish(self, args: Json) -> Json:
        """Checks what Slack checks of a home view: its type, at most 100 blocks."""
        view = args.get("view")
        if not args.get("user_id") or not isinstance(view, dict) or view.get("type") != "home":
            return {"ok": False, "error": "invalid_arguments"}
        if len(view.get("blocks", [])) > 100:
            return {"ok": False, "error": "invalid_blocks"}
        self.homes[args["user_id"]] = view
        return {"ok": True, "view": {**view, "id": f"V{next(self._ids)}"}}

    def _files_getUploadURLExternal(self, args: Json) -> Json:
        file_id = f"F{next(self._ids)}"
        self.uploads[file_id] = {"filename": args.get("filename"), "length": int(args["length"])}
        upload_url = f"http://{self.host}:{self.port}/upload/{file_id}"
        return {"ok": True, "upload_url": upload_url, "file_id": file_id}

    def _files_completeUploadExternal(self, args: Json) -> Json:
        files = []
        for item in args.get("files", []):
            upload = self.uploads.get(item["id"])
            if upload is None or "content" not in upload:
                return {"ok": False, "error": "file_not_found"}
            upload.update(
                title=item.get("title"),
                channel=args.get("channel_id"),
                thread_ts=args.get("thread_ts"),
            )
            files.append({"id": item["id"], "title": item.get("title")})
        return {"ok": True, "files": files}

    async def _socket_url(self) -> str:
        """A websocket URL good for one connection, from Slack's Socket Mode side."""
        if not self.socket_side:
            return self.socket.new_url()
        async with (
            aiohttp.ClientSession() as session,
            session.post(self.socket_side + OPEN) as answer,
        ):
            return str((await answer.json())["url"])

    async def _respond(self, request: web.Request) -> web.Response:
        self.responses.append(await request.json())
        return web.Response(text="ok")

    async def _upload(self, request: web.Request) -> web.Response:
        if "upload" in self.failing:
            return web.Response(status=500, text=self.failing["upload"])
        upload = self.uploads.get(request.match_info["file_id"])
        if upload is None:
            return web.Response(status=404)
        upload["data"] = await request.read()  # as sent: text, or an image's bytes
        upload["content"] = upload["data"].decode(errors="replace")
        return web.Response(text=f"OK - {len(upload['data'])}")

    # --- Socket Mode --------------------------------------------------------------------------

    async def send_socket(self, kind: str, payload: Json, *, retry_attempt: int = 0) -> Json:
        """Deliver one envelope over Socket Mode and wait for the app's ack of it."""
        if not self.socket_side:
            return await self.socket.send(kind, payload, retry_attempt=retry_attempt)
        asked = {"kind": kind, "payload": payload, "retry_attempt": retry_attempt}
        async with (
            aiohttp.ClientSession() as session,
            session.post(self.socket_side + SEND, json=asked) as answer,
        ):
            sent = await answer.json()
        self._changed()
        return dict(sent["ack"])


def _group_id(handle: str) -> str:
    """Slack's user group ids start with S."""
    return "S" + handle.upper().replace("-", "")


def _invalid(args: Json) -> str:
    """Slack's refusals for what a message may hold."""
    if not args.get("channel"):
        return "channel_not_found"
    if args["channel"].startswith("G"):  # a private channel the bot was not invited to
        return "not_in_channel"
    blocks = args.get("blocks") or []
    if len(blocks) > 50:
        return "invalid_blocks"
    for block in blocks:
        if len(block.get("text", {}).get("text", "")) > 3000:
            return "invalid_blocks"
    if not args.get("text") and not blocks:
        return "no_text"
    return ""


@dataclass
class SlackSender:
    """Slack's side of HTTP mode: signed POSTs to the app's /slack/events."""

    url: str
    signing_secret: str = SIGNING_SECRET
    session: aiohttp.ClientSession | None = None

    async def __aenter__(self) -> SlackSender:
        self.session = aiohttp.ClientSession()
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self.session is not None
        await self.session.close()

    async def event(self, body: Json, **options: Any) -> tuple[int, str]:
        return await self.send(json.dumps(body), "application/json", **options)

    async def interaction(self, payload: Json, **options: Any) -> tuple[int, str]:
        form = urllib.parse.urlencode({"payload": json.dumps(payload)})
        return await self.send(form, "application/x-www-form-urlencoded", **options)

    async def command(self, form: dict[str, str], **options: Any) -> tuple[int, str]:
        return await self.send(
            urllib.parse.urlencode(form), "application/x-www-form-urlencoded", **options
        )

    async def send(
        self,
        body: str,
        content_type: str,
        *,
        timestamp: int | None = None,
        secret: str | None = None,
        retry_num: int | None = None,
    ) -> tuple[int, str]:
        """POST `body` signed as Slack does; `timestamp`/`secret` forge stale or bad ones."""
        assert self.session is not None
        stamp = str(int(time.time()) if timestamp is None else timestamp)
        verifier = SignatureVerifier(secret or self.signing_secret)
        headers = {
            "Content-Type": content_type,
            "X-Slack-Request-Timestamp": stamp,
            "X-Slack-Signature": verifier.generate_signature(timestamp=stamp, body=body) or "",
        }
        if retry_num is not None:
            headers["X-Slack-Retry-Num"] = str(retry_num)
            headers["X-Slack-Retry-Reason"] = "http_timeout"
        async with self.session.post(self.url, data=body.encode(), headers=headers) as response:
            return response.status, await response.text()


@dataclass
class SocketSender:
    """Slack's side of Socket Mode: envelopes over the stand-in's websocket, answered 200 once
    the app acked them; `loop` is the stand-in's when it serves on another thread."""

    api: SlackApiStandIn
    loop: asyncio.AbstractEventLoop | None = None

    async def event(self, body: Json) -> tuple[int, str]:
        return await self._send("events_api", body)

    async def interaction(self, payload: Json) -> tuple[int, str]:
        return await self._send("interactive", payload)

    async def command(self, form: dict[str, str]) -> tuple[int, str]:
        return await self._send("slash_commands", dict(form))

    async def _send(self, kind: str, payload: Json) -> tuple[int, str]:
        sent = self.api.send_socket(kind, payload)
        if self.loop is None:
            await sent
        else:
            await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(sent, self.loop))
        return 200, ""
